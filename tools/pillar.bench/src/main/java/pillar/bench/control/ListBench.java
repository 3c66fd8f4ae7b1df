package pillar.bench.control;

import java.net.HttpURLConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import pillar.api.csi.v1.CapacityRange;
import pillar.api.csi.v1.ControllerGrpc;
import pillar.api.csi.v1.ControllerPublishVolumeRequest;
import pillar.api.csi.v1.CreateVolumeRequest;
import pillar.api.csi.v1.ListVolumesRequest;
import pillar.api.csi.v1.ListVolumesResponse;
import pillar.bench.Report;
import pillar.bench.Table;
import pillar.bench.proc.Daemon;
import pillar.bench.stats.Samples;
import pillar.bench.stats.Summary;
import pillar.controller.crd.PillarVolumeState;
import pillar.controller.crd.StorageClassParameters;

/**
 * Group 5, ListVolumes at scale: one volume made by CreateVolume and published to the node, then
 * {@code volumes} PillarVolumeStates like it written straight into the emulated API (as many
 * completed creates), and ListVolumes over the controller's CSI socket: the whole list paged at
 * max_entries 500, and in one page (max_entries 0), each several times; the time of each page
 * (p50, p99) and of each whole listing, and the controller's RSS and live heap before the states,
 * once it lists them all, and after the listings. Figures only: nothing is asserted on time.
 */
public final class ListBench {
    private static final int PAGE = 500;

    private ListBench() {
    }

    public static void run(Cluster cluster, int volumes, int rounds, Report report) {
        Daemon controller = cluster.controllerDaemon();
        PillarVolumeState model = published(cluster);
        long heapBefore = controller.liveHeapBytes();
        long rssBefore = controller.rssKib();

        long writing = System.nanoTime();
        write(cluster.client(), model, volumes);
        Duration written = Duration.ofNanos(System.nanoTime() - writing);
        long seeing = System.nanoTime();
        int listed = awaitListed(cluster, volumes + 1);
        Duration seen = Duration.ofNanos(System.nanoTime() - seeing);
        long heapLoaded = controller.liveHeapBytes();
        long rssLoaded = controller.rssKib();

        Table table = new Table("ListVolumes", "listings", "pages each", "page p50 ms", "page p99 ms", "whole list p50 ms",
                "whole list max ms");
        for (int max : new int[] {PAGE, 0}) {
            Samples pages = new Samples();
            Samples wholes = new Samples();
            int pagesEach = 0;
            for (int round = 0; round < rounds + 1; round++) {
                boolean warmUp = round == 0;
                Samples into = warmUp ? new Samples() : pages;
                long start = System.nanoTime();
                int n = listAll(cluster.controller(), max, into);
                long whole = System.nanoTime() - start;
                if (n != listed) {
                    throw new IllegalStateException("a listing at max_entries " + max + " gave " + n + " volumes, " + listed
                            + " expected");
                }
                if (!warmUp) {
                    wholes.add(whole);
                    pagesEach = into.count() / round;
                }
            }
            Summary page = pages.summary();
            Summary all = wholes.summary();
            table.row("max_entries " + max + (max == 0 ? " (no limit)" : ""), rounds + " (after a warm-up one)", pagesEach,
                    Summary.millis(page.p50()), Summary.millis(page.p99()), Summary.millis(all.p50()), Summary.millis(all.max()));
        }
        long heapAfter = controller.liveHeapBytes();
        long rssAfter = controller.rssKib();

        report.text(listed + " volumes listed: one made by CreateVolume and published to the node, " + volumes
                + " PillarVolumeStates like it (phase Exported, one publication) written into the emulated API by 8 clients in "
                + written.toMillis() + " ms; the controller listed all of them " + seen.toMillis() + " ms after the last write."
                + " The listings are made by this JVM over the controller's CSI socket, one at a time.");
        report.table("ListVolumes at " + listed + " volumes (`dev/bench --group 5`)", table);
        Table memory = new Table("controller", "RSS MiB", "live heap MiB");
        memory.row("before the " + volumes + " states", mib(rssBefore * 1024), mib(heapBefore));
        memory.row("listing all of them (delta)", mib(rssLoaded * 1024) + " (+" + mib((rssLoaded - rssBefore) * 1024) + ")",
                mib(heapLoaded) + " (+" + mib(heapLoaded - heapBefore) + ")");
        memory.row("after the listings (delta)", mib(rssAfter * 1024) + " (+" + mib((rssAfter - rssBefore) * 1024) + ")",
                mib(heapAfter) + " (+" + mib(heapAfter - heapBefore) + ")");
        report.table("The controller's memory (live heap after a full GC, jcmd GC.class_histogram)", memory);
    }

    /** A volume made and published the way the CO does: the model of the states written next. */
    private static PillarVolumeState published(Cluster cluster) {
        String id = cluster.controller().createVolume(CreateVolumeRequest.newBuilder().setName("pvc-list-model")
                .setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(Cluster.VOLUME_BYTES)).addVolumeCapabilities(Lifecycle.RWO)
                .putParameters(StorageClassParameters.STORE, PillarObjects.STORE)
                .putParameters(StorageClassParameters.PROTOCOL, PillarObjects.PROTOCOL).build()).getVolume().getVolumeId();
        cluster.controller().controllerPublishVolume(ControllerPublishVolumeRequest.newBuilder().setVolumeId(id)
                .setNodeId(cluster.nodeId()).setVolumeCapability(Lifecycle.RWO).build());
        return cluster.client().resources(PillarVolumeState.class).withName(id).get();
    }

    /** {@code count} copies of the model under new names, each created and then given the model's status. */
    private static void write(KubernetesClient client, PillarVolumeState model, int count) {
        ExecutorService writers = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                String name = String.format(Locale.ROOT, "pvc-list-%05d", i);
                done.add(writers.submit(() -> {
                    PillarVolumeState copy = client.getKubernetesSerialization().clone(model);
                    ObjectMeta meta = new ObjectMeta();
                    meta.setName(name);
                    meta.setFinalizers(model.getMetadata().getFinalizers());
                    copy.setMetadata(meta);
                    copy.getSpec().setVolumeName(name);
                    PillarVolumeState created = createdOnce(client, copy);
                    created.setStatus(copy.getStatus());
                    client.resource(created).updateStatus();
                }));
            }
            for (Future<?> f : done) {
                f.get(5, TimeUnit.MINUTES);
            }
        } catch (Exception e) {
            throw new IllegalStateException("writing the volume states failed", e);
        } finally {
            writers.shutdownNow();
        }
    }

    /**
     * The state as created, or as it exists already: under load the client retries a POST whose first
     * attempt landed (its answer timed out), and the retry is told 409 Conflict.
     */
    private static PillarVolumeState createdOnce(KubernetesClient client, PillarVolumeState state) {
        try {
            return client.resource(state).create();
        } catch (KubernetesClientException e) {
            if (e.getCode() != HttpURLConnection.HTTP_CONFLICT) {
                throw e;
            }
            return client.resources(PillarVolumeState.class).withName(state.getMetadata().getName()).require();
        }
    }

    private static int awaitListed(Cluster cluster, int expected) {
        long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
        int n;
        while ((n = listAll(cluster.controller(), PAGE, new Samples())) < expected) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the controller lists " + n + " volumes, " + expected + " expected");
            }
            Cluster.pause(200);
        }
        return n;
    }

    /** Follows the tokens to the end; each page's time goes to {@code pages}; returns the volumes listed. */
    private static int listAll(ControllerGrpc.ControllerBlockingStub csi, int max, Samples pages) {
        String token = "";
        int n = 0;
        do {
            long start = System.nanoTime();
            ListVolumesResponse page = csi.withDeadlineAfter(60, TimeUnit.SECONDS).withMaxInboundMessageSize(64 << 20)
                    .listVolumes(ListVolumesRequest.newBuilder().setMaxEntries(max).setStartingToken(token).build());
            pages.add(System.nanoTime() - start);
            n += page.getEntriesCount();
            token = page.getNextToken();
        } while (!token.isEmpty());
        return n;
    }

    private static String mib(long bytes) {
        return String.format(Locale.ROOT, "%.1f", bytes / 1048576.0);
    }
}
