/**
 * The machinery every reconciler runs on, whatever it reconciles: the informer-fed loop, its work queue,
 * backoff and meters, a reconciler's intent, and the writers of status, conditions and Kubernetes Events.
 */
package pillar.controller.reconcile.loop;
