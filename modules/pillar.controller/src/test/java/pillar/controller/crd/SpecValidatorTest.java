package pillar.controller.crd;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import pillar.controller.reconcile.Pillars;

/** The Java twin of the schema: hostile and inconsistent specs, each problem named. */
class SpecValidatorTest {
    @Test
    void aMissingSpecIsAProblem() {
        assertThat(SpecValidator.problems((PillarAgentSpec) null)).containsExactly("spec: is required");
        assertThat(SpecValidator.problems((PillarProtocolSpec) null)).containsExactly("spec: is required");
    }

    @Test
    void aValidAgentHasNoProblem() {
        assertThat(SpecValidator.problems(Pillars.agentAt("a", "192.0.2.1", 9500).getSpec())).isEmpty();
        assertThat(SpecValidator.problems(Pillars.agentAt("a", "fd00::1", 9500).getSpec())).isEmpty();
        assertThat(SpecValidator.problems(Pillars.agentAt("a", "storage-1.example.com", 9500).getSpec())).isEmpty();
        assertThat(SpecValidator.problems(Pillars.agentOnNode("a", "worker-1").getSpec())).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "-rf", "a b", "host;reboot", "x\ny", "exa mple.com", "256.1.1.1:", "[::1]", "a..b", "ex_ample.com"})
    void hostileAddressesAreRefused(String address) {
        assertThat(SpecValidator.problems(Pillars.agentAt("a", address, 9500).getSpec()))
                .singleElement().asString().startsWith("spec.address: must be an IP address or a DNS name");
    }

    @Test
    void controlCharactersAreNeverEchoed() {
        String problem = SpecValidator.problems(Pillars.agentAt("a", "evil\u001b[31m", 9500).getSpec()).getFirst();
        assertThat(problem).doesNotContain("\u001b").contains("'evil?[31m'");
    }

    @Test
    void tlsSecretModeNeedsASecret() {
        PillarAgentSpec spec = Pillars.agentAt("a", "192.0.2.1", 9500).getSpec();
        AgentTls tls = new AgentTls();
        tls.setMode(AgentTls.Mode.SECRET);
        spec.setTls(tls);
        assertThat(SpecValidator.problems(spec)).containsExactly("spec.tls: tls.mode secret needs tls.secretName");
        tls.setSecretName("Bad_Name");
        assertThat(SpecValidator.problems(spec)).singleElement().asString().startsWith("spec.tls.secretName: must be a Secret name");
        tls.setSecretName("agent-tls");
        assertThat(SpecValidator.problems(spec)).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"-pool", "tank/child", "tank pool", "tank;x", "ta$nk"})
    void hostilePoolNamesAreRefused(String pool) {
        assertThat(SpecValidator.problems(Pillars.zfsStore("s", "a", "fast", pool, null).getSpec()))
                .singleElement().asString().startsWith("spec.zfs.pool: must be a ZFS pool name");
        assertThat(SpecValidator.problems(Pillars.lvmStore("s", "a", "fast", pool, null).getSpec()))
                .singleElement().asString().startsWith("spec.lvm.volumeGroup: must be an LVM volume group name");
    }

    @ParameterizedTest
    @ValueSource(strings = {"/abs", "../up", "a//b", "a/", "a b", "-x"})
    void hostileDatasetsAreRefused(String dataset) {
        assertThat(SpecValidator.problems(Pillars.zfsStore("s", "a", "fast", "tank", dataset).getSpec()))
                .singleElement().asString().startsWith("spec.zfs.parentDataset: must be a dataset path below the pool");
    }

    @Test
    void aStoreNeedsExactlyOneLayoutAndABackendLabel() {
        PillarStoreSpec spec = Pillars.zfsStore("s", "a", "Fast_Backend", "tank", "k8s").getSpec();
        spec.setLvm(Pillars.lvmStore("s", "a", "fast", "vg0", "pool0").getSpec().getLvm());
        assertThat(SpecValidator.problems(spec)).containsExactly(
                "spec: set exactly one of zfs and lvm",
                "spec.zfs.backend: must be a backend name of the agent (RFC 1123 label: a-z, 0-9, '-', at most 63), is"
                        + " 'Fast_Backend'");
        spec.setZfs(null);
        spec.setLvm(null);
        assertThat(SpecValidator.problems(spec)).containsExactly("spec: set exactly one of zfs and lvm");
    }

    @Test
    void protocolRules() {
        PillarProtocolSpec spec = Pillars.protocol("p", "192.0.2.1").getSpec();
        assertThat(SpecValidator.problems(spec)).isEmpty();
        spec.getNvmeofTcp().setPort(0);
        spec.getNvmeofTcp().setNrIoQueues(0);
        spec.getNvmeofTcp().setCtrlLossTmo(3600);
        spec.getNvmeofTcp().setReconnectDelay(10);
        assertThat(SpecValidator.problems(spec)).containsExactly(
                "spec.nvmeofTcp.port: must be 1 to 65535, is 0",
                "spec.nvmeofTcp.nrIoQueues: must be 1 to 1024, is 0");
        spec.setNfs(new Nfs());
        assertThat(SpecValidator.problems(spec)).containsExactly("spec: set exactly one of nvmeofTcp and nfs");
        spec.setNvmeofTcp(null);
        assertThat(SpecValidator.problems(spec)).as("nfs from the agent's address").isEmpty();
        assertThat(spec.kind()).isEqualTo(ProtocolKind.NFS);
        spec.getNfs().setServerAddress("0.0.0.0");
        assertThat(SpecValidator.problems(spec)).containsExactly("spec.nfs.serverAddress: must be the IP address of the storage"
                + " node the nodes mount from (IPv4 or IPv6, not a wildcard), is '0.0.0.0'");
        spec.getNfs().setServerAddress("nfs.example");
        assertThat(SpecValidator.problems(spec)).hasSize(1);
        spec.getNfs().setServerAddress("fd00::10");
        spec.getNfs().setVersion(null);
        assertThat(SpecValidator.problems(spec)).containsExactly("spec.nfs.version: must be 4.2");
        spec.setNfs(null);
        assertThat(SpecValidator.problems(spec)).containsExactly("spec: set exactly one of nvmeofTcp and nfs");
    }

    @Test
    void aDatasetStoreTakesNoZvolSettings() {
        PillarStoreSpec spec = Pillars.datasetStore("s", "a", "b", "tank", "nfs").getSpec();
        assertThat(SpecValidator.problems(spec)).isEmpty();
        spec.getZfs().setVolblocksize("16K");
        assertThat(SpecValidator.problems(spec)).containsExactly(
                "spec.zfs: layout dataset takes no volblocksize and no sparse: true (zvol settings)");
        spec.getZfs().setVolblocksize(null);
        spec.getZfs().setSparse(true);
        assertThat(SpecValidator.problems(spec)).hasSize(1);
        spec.getZfs().setLayout(ZfsStore.Layout.ZVOL);
        assertThat(SpecValidator.problems(spec)).isEmpty();
    }

    @Test
    void ctrlLossTmoIsBoundedAndNeverForever() {
        PillarProtocolSpec spec = Pillars.protocol("p", "192.0.2.1").getSpec();
        spec.getNvmeofTcp().setCtrlLossTmo(-1);
        assertThat(SpecValidator.problems(spec)).containsExactly("spec.nvmeofTcp.ctrlLossTmo: must be 1 to 3600, is -1");
        spec.getNvmeofTcp().setCtrlLossTmo(0);
        assertThat(SpecValidator.problems(spec)).containsExactly("spec.nvmeofTcp.ctrlLossTmo: must be 1 to 3600, is 0");
        spec.getNvmeofTcp().setCtrlLossTmo(3601);
        assertThat(SpecValidator.problems(spec)).containsExactly("spec.nvmeofTcp.ctrlLossTmo: must be 1 to 3600, is 3601");
        spec.getNvmeofTcp().setCtrlLossTmo(1);
        assertThat(SpecValidator.problems(spec)).isEmpty();
        spec.getNvmeofTcp().setReconnectDelay(2);
        assertThat(SpecValidator.problems(spec)).containsExactly("spec.nvmeofTcp: ctrlLossTmo must be at least reconnectDelay");
    }

    @Test
    void acceptingANonZeroingPoolNeedsAThinPool() {
        PillarStoreSpec spec = Pillars.lvmStore("s", "storage-1", "fast", "vg0", "pool0").getSpec();
        spec.getLvm().setAcceptNonZeroingThinPool(true);
        assertThat(SpecValidator.problems(spec)).isEmpty();
        spec.getLvm().setThinPool(null);
        assertThat(SpecValidator.problems(spec)).containsExactly("spec.lvm: acceptNonZeroingThinPool applies to a thinPool only");
    }

    @Test
    void authIsRequiredOrOffAndNeedsTheAcl() {
        PillarProtocolSpec spec = Pillars.protocol("p", "192.0.2.1").getSpec();
        assertThat(spec.getNvmeofTcp().getAuth()).isEqualTo(NvmeofTcp.Auth.OFF);
        spec.getNvmeofTcp().setAuth(NvmeofTcp.Auth.REQUIRED);
        assertThat(SpecValidator.problems(spec)).isEmpty();
        spec.getNvmeofTcp().setAclEnabled(false);
        assertThat(SpecValidator.problems(spec)).containsExactly(
                "spec.nvmeofTcp.auth: required needs aclEnabled: true (a target that admits any host authenticates none)");
        spec.getNvmeofTcp().setAuth(null);
        assertThat(SpecValidator.problems(spec)).containsExactly("spec.nvmeofTcp.auth: must be required or off");
    }

    @Test
    void tlsIsOffUnlessRequiredAndRequiredNeedsTheAcl() {
        PillarProtocolSpec spec = Pillars.protocol("p", "192.0.2.1").getSpec();
        assertThat(spec.getNvmeofTcp().getTls()).isEqualTo(TlsMode.OFF);
        assertThat(spec.getNvmeofTcp().tlsRequired()).isFalse();
        spec.getNvmeofTcp().setTls(TlsMode.REQUIRED);
        spec.getNvmeofTcp().setAuth(NvmeofTcp.Auth.REQUIRED);
        assertThat(SpecValidator.problems(spec)).as("with auth and without").isEmpty();
        spec.getNvmeofTcp().setAuth(NvmeofTcp.Auth.OFF);
        assertThat(SpecValidator.problems(spec)).isEmpty();
        spec.getNvmeofTcp().setAclEnabled(false);
        assertThat(SpecValidator.problems(spec)).containsExactly(
                "spec.nvmeofTcp.tls: required needs aclEnabled: true (a target that admits any host has no key for it)");
        spec.getNvmeofTcp().setTls(null);
        assertThat(SpecValidator.problems(spec)).containsExactly("spec.nvmeofTcp.tls: must be required or off");
    }

    @Test
    void nfsSquashIsNoRootSquashUnlessSetAndNeverUnset() {
        PillarProtocolSpec spec = pillar.controller.reconcile.Pillars.nfsProtocol("n", "192.0.2.1").getSpec();
        assertThat(spec.getNfs().getSquash()).isEqualTo(Nfs.Squash.NO_ROOT_SQUASH);
        spec.getNfs().setSquash(Nfs.Squash.ROOT_SQUASH);
        assertThat(SpecValidator.problems(spec)).isEmpty();
        spec.getNfs().setSquash(null);
        assertThat(SpecValidator.problems(spec)).containsExactly("spec.nfs.squash: must be no_root_squash or root_squash");
    }

    @Test
    void nfsTlsIsOffUnlessSetAndNeverUnset() {
        PillarProtocolSpec spec = pillar.controller.reconcile.Pillars.nfsProtocol("n", "192.0.2.1").getSpec();
        assertThat(spec.getNfs().tlsRequired()).isFalse();
        spec.getNfs().setTls(TlsMode.REQUIRED);
        assertThat(SpecValidator.problems(spec)).isEmpty();
        spec.getNfs().setTls(null);
        assertThat(SpecValidator.problems(spec)).containsExactly("spec.nfs.tls: must be required or off");
    }

    @Test
    void overridableListsKnownSettingsOnce() {
        PillarStorageClassSpec spec = Pillars.storageClass("c", "tank", "tcp").getSpec();
        assertThat(spec.getOverridable()).isEmpty();
        spec.setOverridable(List.of("volblocksize", "mkfsOptions"));
        assertThat(SpecValidator.problems(spec)).isEmpty();
        spec.setOverridable(List.of("volblocksize", "store", "volblocksize"));
        assertThat(SpecValidator.problems(spec)).containsExactly(
                "spec.overridable[1]: may only be sparse, volblocksize, compression, mkfsOptions; 'store' is not a volume setting",
                "spec.overridable[2]: volblocksize is listed twice");
    }

    @Test
    void storageClassSettingsAreChecked() {
        PillarStorageClassSpec spec = Pillars.storageClass("c", "tank", "tcp").getSpec();
        spec.setParameters(Map.of("sparse", "yes", "compression", "lz4", "mkfsOptions", "-m 0 -E nodiscard"));
        assertThat(SpecValidator.problems(spec)).containsExactly("spec.parameters.sparse: must be true or false, is 'yes'");
        spec.setParameters(Map.of("mkfsOptions", "-m 0; reboot"));
        assertThat(SpecValidator.problems(spec)).singleElement().asString().startsWith("spec.parameters.mkfsOptions: must be mkfs options");
        spec.setParameters(Map.of());
        spec.setFsType(null);
        spec.setStore("Tank");
        assertThat(SpecValidator.problems(spec)).containsExactly(
                "spec.store: must be a PillarStore name (RFC 1123 subdomain, at most 253 characters), is 'Tank'",
                "spec.fsType: is required");
    }
}
