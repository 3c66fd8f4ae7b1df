/**
 * The reconcilers of the Pillar resources; the small machinery they run on is in
 * {@code pillar.controller.reconcile.loop}.
 *
 * <p>A {@link pillar.controller.reconcile.loop.ReconcileLoop} feeds a
 * {@link pillar.controller.reconcile.loop.Reconciler} the names of changed objects from a fabric8
 * informer, one call at a time per name; the reconciler reads the world, acts, writes the status
 * (on a minimal object, through the status subresource, only when it changed), records failures
 * as conditions and, when a condition changes, as a Kubernetes Event, and returns its intent
 * ({@link pillar.controller.reconcile.loop.Result}): done, look again after a while, or retry with
 * backoff. {@link pillar.controller.reconcile.PillarControllers} wires the four loops together and
 * tells readiness.
 */
package pillar.controller.reconcile;
