/**
 * Creation and deletion: CreateVolume's parameters, settings and plan, the provisioning, the one way a
 * lifecycle ends, and the removal of creates nobody will finish.
 */
package pillar.controller.volume.create;
