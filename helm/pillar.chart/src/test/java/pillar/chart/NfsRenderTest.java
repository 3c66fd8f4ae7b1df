package pillar.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static pillar.chart.ControllerRenderTest.mount;
import static pillar.chart.ControllerRenderTest.mounts;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import org.junit.jupiter.api.Test;

/**
 * agent.nfs: off, nothing of NFS is in the agent's pod; on, an init container starts nfsd (NFSv4.2
 * only, the grace time first, a running nfsd left alone), rpc.mountd runs beside the agent under a
 * liveness probe, both share the host's /etc/exports and /var/lib/nfs, and the datasets' roots reach
 * the host's mount table.
 */
class NfsRenderTest {
    @SuppressWarnings("unchecked")
    static Map<String, Object> nfs(Map<String, Object> nfs) {
        Map<String, Object> agent = new HashMap<>((Map<String, Object>) AgentRenderTest.TWO_NODES.get("agent"));
        agent.put("nfs", nfs);
        return Map.of("agent", agent);
    }

    static final Map<String, Object> ON = nfs(Map.of("enabled", true, "exportRoots", List.of("/tank", "/srv/nfs")));

    private final Rendered rendered = HelmChart.render(ON);
    private final PodSpec pod = rendered.agent().getSpec().getTemplate().getSpec();

    @Test
    void offByDefaultTheAgentsPodHasNothingOfNfs() {
        Rendered off = HelmChart.render(AgentRenderTest.TWO_NODES);
        PodSpec plain = off.agent().getSpec().getTemplate().getSpec();
        assertThat(plain.getContainers()).extracting(Container::getName).containsExactly("pillar-agent");
        assertThat(plain.getInitContainers()).singleElement().satisfies(init ->
                assertThat(init.getCommand()).containsExactly("modprobe", "-a", "nvmet", "nvmet_tcp"));
        assertThat(plain.getShareProcessNamespace()).isNotEqualTo(Boolean.TRUE);
        assertThat(off.agent().getSpec().getTemplate().getMetadata().getAnnotations()).containsOnlyKeys("checksum/config");
        assertThat(plain.getVolumes()).extracting(v -> v.getName())
                .doesNotContain("nfs-exports", "nfs-state", "host-root", "nfs-conf");
        assertThat(NodeRenderTest.hostPaths(plain)).noneMatch(p -> p.contains("nfs") || p.contains("=/:"));
        assertThat(off.find(ConfigMap.class, "pillar-pillar-csi-agent-nfs")).isEmpty();
        assertThat(off.manifests()).doesNotContain("rpc.nfsd", "rpc.mountd", "nfsd");
        // and turned on without storage nodes there is no agent, so nothing of NFS either
        Rendered noNodes = HelmChart.render(Map.of("agent", Map.of("nfs", Map.of("enabled", true, "exportRoots", List.of("/tank")))));
        assertThat(noNodes.find(ConfigMap.class, "pillar-pillar-csi-agent-nfs")).isEmpty();
        assertThat(noNodes.manifests()).doesNotContain("rpc.mountd");
    }

    @Test
    void theModprobeInitContainerLoadsNfsdAndTheNextStartsItWithNfsV42Only() {
        assertThat(pod.getInitContainers()).extracting(Container::getName).containsExactly("modprobe", "nfsd");
        assertThat(pod.getInitContainers().getFirst().getCommand()).containsExactly("modprobe", "-a", "nvmet", "nvmet_tcp", "nfsd");
        Container nfsd = pod.getInitContainers().get(1);
        assertThat(nfsd.getImage()).isEqualTo(HelmChart.TEST_REGISTRY + "/pillar-csi/agent:0.1.0");
        assertThat(nfsd.getSecurityContext().getPrivileged()).isTrue();
        // the host's /var/lib/nfs: nfsd opens v4recovery (its clients' records) where rpc.nfsd runs
        assertThat(mounts(nfsd)).containsExactly(mount("nfs-state", "/var/lib/nfs", null));
        assertThat(nfsd.getCommand()).hasSize(3).startsWith("sh", "-c");
        String script = nfsd.getCommand().get(2);
        assertThat(script).startsWith("set -eu\n")
                // nfsd's filesystem, mounted in the container's own /proc unless it is there
                .contains("[ -e $d/threads ] || mount -t nfsd nfsd $d")
                // the grace time (rpc.nfsd -G writes nfsv4gracetime before it starts the threads), NFSv4.2 only
                .contains("rpc.nfsd -G 90 -N 3 -V 4.2 --no-udp 8")
                // a running nfsd (a restarted pod, the host's own) is left alone, or refused without NFSv4.2
                .contains("if [ \"$(cat $d/threads)\" -gt 0 ]; then", "left as it is\"; exit 0",
                        "already runs without NFSv4.2")
                .contains("*\" +4.2 \"*) return 0")
                .contains("mkdir -p /var/lib/nfs/v4recovery\n");
        assertThat(script.indexOf("mkdir -p /var/lib/nfs/v4recovery")).as("the records' directory exists before nfsd starts")
                .isLessThan(script.indexOf("rpc.nfsd -G"));
        assertThat(script.indexOf("-gt 0 ]; then")).as("the running-nfsd check comes before rpc.nfsd")
                .isLessThan(script.indexOf("rpc.nfsd -G"));
        assertThat(script.lines().filter(l -> l.contains("rpc.nfsd -G"))).singleElement();
    }

    @Test
    void graceAndThreadsAreValues() {
        PodSpec tuned = HelmChart.render(nfs(Map.of("enabled", true, "exportRoots", List.of("/tank"), "graceSeconds", 10,
                "threads", 16))).agent().getSpec().getTemplate().getSpec();
        assertThat(Rendered.container(initNamed(tuned), "nfsd").getCommand().get(2)).contains("rpc.nfsd -G 10 -N 3 -V 4.2 --no-udp 16");
    }

    @Test
    void mountdRunsInTheForegroundNfsV4OnlyUnderALivenessProbe() {
        // first, so that it runs by the time the agent's start-up check looks; kubectl still picks the agent
        assertThat(pod.getContainers()).extracting(Container::getName).containsExactly("rpc-mountd", "pillar-agent");
        assertThat(rendered.agent().getSpec().getTemplate().getMetadata().getAnnotations())
                .containsEntry("kubectl.kubernetes.io/default-container", "pillar-agent");
        Container mountd = Rendered.container(pod, "rpc-mountd");
        assertThat(mountd.getImage()).isEqualTo(HelmChart.TEST_REGISTRY + "/pillar-csi/agent:0.1.0");
        assertThat(mountd.getCommand()).hasSize(3).startsWith("sh", "-c");
        assertThat(mountd.getCommand().get(2)).isEqualTo("""
                set -eu
                [ -e /proc/fs/nfsd/threads ] || mount -t nfsd nfsd /proc/fs/nfsd
                exec rpc.mountd --foreground -N 2 -N 3 --no-udp
                """);
        assertThat(mountd.getArgs()).isNullOrEmpty();
        assertThat(mountd.getLivenessProbe().getExec().getCommand()).hasSize(3).startsWith("sh", "-c")
                .last().asString().contains("/proc/[0-9]*/comm", "[ \"$n\" = rpc.mountd ] && exit 0", "exit 1");
        assertThat(mountd.getLivenessProbe().getPeriodSeconds()).isEqualTo(10);
        assertThat(mountd.getLivenessProbe().getFailureThreshold()).isEqualTo(3);
        assertThat(mountd.getSecurityContext().getPrivileged()).isTrue();
        assertThat(mountd.getResources().getLimits()).containsOnlyKeys("memory");
        assertThat(mountd.getResources().getLimits().get("memory").toString()).isEqualTo("64Mi");
        // the agent's NfsPresence looks for rpc.mountd among its own processes
        assertThat(pod.getShareProcessNamespace()).isTrue();
        assertThat(pod.getHostNetwork()).as("nfsd's upcall channels are the host network namespace's").isTrue();
    }

    @Test
    void agentAndMountdShareTheHostsExportsAndStateAndMountdSeesTheHostsRoot() {
        assertThat(mounts(Rendered.container(pod, "rpc-mountd"))).containsExactly(
                mount("nfs-state", "/var/lib/nfs", null),
                mount("nfs-exports", "/etc/exports", true),
                mount("host-root", "/host", true, "HostToContainer"),
                mount("nfs-conf", "/etc/nfs.conf.d/pillar-csi.conf", true));
        assertThat(Rendered.container(pod, "rpc-mountd").getVolumeMounts().getLast().getSubPath()).isEqualTo("pillar-csi.conf");
        assertThat(mounts(Rendered.container(pod, "pillar-agent"))).containsSequence(
                mount("nfs-exports", "/etc/exports", null),
                mount("nfs-state", "/var/lib/nfs", null),
                mount("export-root-0", "/tank", null, "Bidirectional"),
                mount("export-root-1", "/srv/nfs", null, "Bidirectional"));
        assertThat(NodeRenderTest.hostPaths(pod)).contains(
                "nfs-exports=/etc/exports:FileOrCreate",
                "nfs-state=/var/lib/nfs:DirectoryOrCreate",
                "host-root=/:Directory",
                "export-root-0=/tank:Directory",
                "export-root-1=/srv/nfs:Directory");
        assertThat(pod.getVolumes()).filteredOn(v -> v.getName().equals("nfs-conf")).singleElement()
                .satisfies(v -> assertThat(v.getConfigMap().getName()).isEqualTo("pillar-pillar-csi-agent-nfs"));
    }

    @Test
    void mountdsSettingsPutExportsBelowTheHostsRootAndTrustTheClientsGroups() {
        ConfigMap config = rendered.get(ConfigMap.class, "pillar-pillar-csi-agent-nfs");
        assertThat(config.getData()).containsOnlyKeys("pillar-csi.conf");
        List<String> lines = config.getData().get("pillar-csi.conf").lines().filter(l -> !l.startsWith("#")).toList();
        assertThat(lines).containsExactly("[exports]", "rootdir=/host", "[mountd]", "manage-gids=n");
        // a change of the settings rolls the pods
        assertThat(rendered.agent().getSpec().getTemplate().getMetadata().getAnnotations()).containsKey("checksum/nfs-config");
    }

    @Test
    void enabledWithoutExportRootsIsRefusedNamingTheValue() {
        assertThatThrownBy(() -> HelmChart.template(nfs(Map.of("enabled", true)), "1.25.0"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("agent.nfs.enabled=true needs agent.nfs.exportRoots");
    }

    private static PodSpec initNamed(PodSpec pod) {
        PodSpec inits = new PodSpec();
        inits.setContainers(pod.getInitContainers());
        return inits;
    }

    @Test
    void aZfsDatasetBackendIsWrittenAsTheAgentReadsItAndNeedsTheNfsServer() {
        Map<String, Object> dataset = Map.of("storage-1", Map.of("backends", List.of(
                Map.of("name", "tank-nfs", "type", "zfs-dataset", "pool", "tank", "parentDataset", "nfs"))));
        Rendered on = HelmChart.render(Map.of("agent", Map.of("nodes", dataset,
                "nfs", Map.of("enabled", true, "exportRoots", List.of("/tank")))));
        assertThat(on.configFile("pillar-pillar-csi-agent", "storage-1.yaml")).extractingByKey("agent")
                .asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.MAP).containsEntry("backends", List.of(
                        Map.of("name", "tank-nfs", "type", "zfs-dataset", "pool", "tank", "parent-dataset", "nfs")));
        assertThatThrownBy(() -> HelmChart.template(Map.of("agent", Map.of("nodes", dataset)), "1.25.0"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("tank-nfs is a zfs-dataset backend (NFS exports) but agent.nfs.enabled=false");
    }
}
