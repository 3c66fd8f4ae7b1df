/**
 * The sandbox driver: a developer tool that plays the CO against running pillar-csi workloads
 * (Identity over their CSI sockets, the agent API over TCP). Not shipped in any runtime or image.
 */
module pillar.sandbox {
    requires pillar.api;
    requires io.helidon.logging.common;
}
