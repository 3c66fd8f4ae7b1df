/**
 * pillar-agent, the storage-node workload: owns every nvmet configfs write and every zfs and lvm
 * command on its host, and enforces fencing. Runs with {@code java -m pillar.agent/pillar.agent.AgentMain}.
 *
 * <p>Exports nothing: the configfs and backend code is internal to this module.
 */
module pillar.agent {
    requires pillar.api;
    requires pillar.runtime;
    requires io.helidon.common.configurable;
    requires io.helidon.common.pki;
    requires io.helidon.logging.common;
    requires java.logging;
    requires jdk.unsupported; // com.sun.nio.file.ExtendedOpenOption.DIRECT: the block copy of an LVM linear clone
    requires io.helidon.json; // parses lvs/vgs --reportformat json (pillar.agent.backend.lvm)
}
