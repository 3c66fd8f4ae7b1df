/**
 * Publication and grants: ControllerPublish and Unpublish, the host authentication and node addresses
 * they admit, host NQNs two nodes share, and the revocation of grants no publication holds.
 */
package pillar.controller.volume.publish;
