package pillar.controller.volume;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.grpc.stub.StreamObserver;
import pillar.api.agent.v1.BackendKind;
import pillar.api.csi.v1.ControllerExpandVolumeRequest;
import pillar.api.csi.v1.ControllerExpandVolumeResponse;
import pillar.api.csi.v1.ControllerPublishVolumeRequest;
import pillar.api.csi.v1.ControllerPublishVolumeResponse;
import pillar.api.csi.v1.ControllerUnpublishVolumeRequest;
import pillar.api.csi.v1.ControllerUnpublishVolumeResponse;
import pillar.api.csi.v1.CreateSnapshotRequest;
import pillar.api.csi.v1.CreateSnapshotResponse;
import pillar.api.csi.v1.CreateVolumeRequest;
import pillar.api.csi.v1.CreateVolumeResponse;
import pillar.api.csi.v1.DeleteSnapshotRequest;
import pillar.api.csi.v1.DeleteSnapshotResponse;
import pillar.api.csi.v1.DeleteVolumeRequest;
import pillar.api.csi.v1.DeleteVolumeResponse;
import pillar.api.csi.v1.ListSnapshotsRequest;
import pillar.api.csi.v1.ListSnapshotsResponse;
import pillar.runtime.server.VolumeLocks;
import pillar.controller.agent.FakeAgent;
import pillar.controller.agent.FakeAgentClient;
import pillar.controller.agent.FaultInjectingAgentClient;
import pillar.controller.crd.Condition;
import pillar.controller.crd.PillarStore;
import pillar.controller.crd.PillarStoreStatus;
import pillar.controller.csi.ControllerService;
import pillar.controller.snapshot.InMemorySnapshotRecords;
import pillar.controller.snapshot.Snapshots;
import pillar.controller.reconcile.AgentTargets;
import pillar.controller.reconcile.loop.Events;
import pillar.controller.reconcile.Pillars;
import pillar.controller.volume.state.InMemoryVolumeRecords;
import pillar.controller.volume.state.VolumeStates;

/**
 * The controller's volume state machine with nothing of Kubernetes: {@link InMemoryVolumeRecords},
 * an {@link InMemoryInventory} holding agent {@value #AGENT} (the stateful fake at {@value #HOST}),
 * its ready LVM thin store {@value #STORE} and protocol {@value #PROTOCOL}, behind a
 * {@link ControllerService} called in process. {@link #restart} is a crash: a fresh object graph,
 * nothing kept but the records and the agent. Not served: ListVolumes (it pages the informer cache)
 * and volumes whose export requires authentication or TLS (their Secrets are not behind a port).
 */
final class InMemoryController {
    static final String AGENT = "storage-1";
    static final String STORE = "fast";
    static final String PROTOCOL = "tcp";
    static final String HOST = "192.0.2.10";
    static final long GIB = 1L << 30;

    final InMemoryVolumeRecords records = new InMemoryVolumeRecords();
    final InMemorySnapshotRecords snapshotRecords = new InMemorySnapshotRecords();
    final InMemoryInventory inventory = new InMemoryInventory();
    final FakeAgentClient fake = new FakeAgentClient();
    final FaultInjectingAgentClient agents = new FaultInjectingAgentClient(fake);
    /** Every event recorded, as "Type reason: message about name". */
    final List<String> events = new ArrayList<>();
    private ControllerService csi;
    /** The object graph of the current process (replaced by {@link #restart}). */
    Volumes volumes;
    VolumeLocks locks;

    InMemoryController() {
        fake.agent(HOST, 9500).backend(STORE, BackendKind.BACKEND_KIND_LVM_THIN, "vg0", "pool0")
                .capacity(STORE, 100 * GIB, 100 * GIB);
        PillarStore store = Pillars.lvmStore(STORE, AGENT, STORE, "vg0", "pool0");
        ready(store, "lvm-thin", "pool0 in vg0");
        inventory.put(Pillars.agentAt(AGENT, HOST, 9500)).put(store).put(Pillars.protocol(PROTOCOL, HOST));
        restart();
    }

    /** The store as its reconciler leaves a discovered one: observed, of that backend kind, PoolDiscovered true. */
    private static void ready(PillarStore store, String backendKind, String found) {
        store.getMetadata().setGeneration(1L);
        PillarStoreStatus status = new PillarStoreStatus();
        status.setObservedGeneration(1L);
        status.setBackendKind(backendKind);
        status.setConditions(List.of(new Condition(PillarStore.POOL_DISCOVERED, Condition.TRUE, "PoolFound", found,
                "2026-01-01T00:00:00Z", 1)));
        store.setStatus(status);
    }

    /** Adds a ready LVM linear store (backend of the same name on the agent): one that cannot take snapshots. */
    InMemoryController linearStore(String name) {
        return store(name, BackendKind.BACKEND_KIND_LVM_LINEAR);
    }

    /** Adds a ready ZFS store (backend of the same name on the agent). */
    InMemoryController zfsStore(String name) {
        return store(name, BackendKind.BACKEND_KIND_ZFS_ZVOL);
    }

    private InMemoryController store(String name, BackendKind kind) {
        boolean zfs = kind == BackendKind.BACKEND_KIND_ZFS_ZVOL;
        fake.agent(HOST, 9500).backend(name, kind, zfs ? "tank" : "vg1", zfs ? "k8s" : "").capacity(name, 100 * GIB, 100 * GIB);
        PillarStore store = zfs ? Pillars.zfsStore(name, AGENT, name, "tank", "k8s") : Pillars.lvmStore(name, AGENT, name, "vg1", null);
        ready(store, zfs ? "zfs" : "lvm", zfs ? "tank" : "vg1");
        inventory.put(store);
        return this;
    }

    /**
     * Adds a ready dataset store {@code name} (a zfs-dataset backend of that name on the agent, pool
     * tank, parent nfs) and the NFS protocol {@code protocol} serving from {@value #HOST}.
     */
    InMemoryController nfsStore(String name, String protocol) {
        fake.agent(HOST, 9500).backend(name, BackendKind.BACKEND_KIND_ZFS_DATASET, "tank", "nfs").capacity(name, 100 * GIB, 100 * GIB);
        PillarStore store = Pillars.datasetStore(name, AGENT, name, "tank", "nfs");
        ready(store, "zfs-dataset", "tank/nfs");
        inventory.put(store).put(Pillars.nfsProtocol(protocol, HOST));
        return this;
    }

    /** A node of that name whose CSINode reports {@code nqn} and whose Node has these InternalIPs. */
    InMemoryController node(String name, String nqn, String... internalIps) {
        io.fabric8.kubernetes.api.model.NodeBuilder node = new io.fabric8.kubernetes.api.model.NodeBuilder()
                .withNewMetadata().withName(name).endMetadata();
        var status = node.withNewStatus();
        for (String ip : internalIps) {
            status.addNewAddress().withType("InternalIP").withAddress(ip).endAddress();
        }
        status.addNewAddress().withType("Hostname").withAddress(name).endAddress();
        inventory.put(status.endStatus().build()).reportHostNqn(name, nqn);
        return this;
    }

    /** A crash and a fresh process: a new object graph over the same records and agent. */
    void restart() {
        locks = new VolumeLocks();
        Events recorder = new Events() {
            @Override
            public void normal(HasMetadata about, String reason, String message) {
                record("Normal", about, reason, message);
            }

            @Override
            public void warning(HasMetadata about, String reason, String message) {
                record("Warning", about, reason, message);
            }
        };
        volumes = new Volumes(records, VolumeStates.Writes.NONE, inventory, new AgentTargets(inventory::node, List::of, false),
                agents, locks, Leading.ALWAYS, recorder, null, null, Clock.systemUTC(), Duration.ofMinutes(10));
        csi = new ControllerService(volumes, null, new Snapshots(snapshotRecords, volumes));
    }

    private synchronized void record(String type, HasMetadata about, String reason, String message) {
        events.add(type + " " + reason + ": " + message + " about " + about.getMetadata().getName());
    }

    FakeAgent agent() {
        return fake.agent(HOST, 9500);
    }

    CreateVolumeResponse create(CreateVolumeRequest request) {
        return call(csi::createVolume, request);
    }

    DeleteVolumeResponse delete(DeleteVolumeRequest request) {
        return call(csi::deleteVolume, request);
    }

    ControllerPublishVolumeResponse publish(ControllerPublishVolumeRequest request) {
        return call(csi::controllerPublishVolume, request);
    }

    ControllerUnpublishVolumeResponse unpublish(ControllerUnpublishVolumeRequest request) {
        return call(csi::controllerUnpublishVolume, request);
    }

    CreateSnapshotResponse snapshot(CreateSnapshotRequest request) {
        return call(csi::createSnapshot, request);
    }

    DeleteSnapshotResponse deleteSnapshot(DeleteSnapshotRequest request) {
        return call(csi::deleteSnapshot, request);
    }

    ListSnapshotsResponse listSnapshots(ListSnapshotsRequest request) {
        return call(csi::listSnapshots, request);
    }

    ControllerExpandVolumeResponse expand(ControllerExpandVolumeRequest request) {
        return call(csi::controllerExpandVolume, request);
    }

    /**
     * Calls one RPC of the service in process, as gRPC would.
     *
     * @throws io.grpc.StatusRuntimeException the status it answered with, when not OK
     */
    private static <Q, A> A call(BiConsumer<Q, StreamObserver<A>> rpc, Q request) {
        List<A> answers = new ArrayList<>();
        List<Throwable> failures = new ArrayList<>();
        rpc.accept(request, new StreamObserver<>() {
            @Override
            public void onNext(A value) {
                answers.add(value);
            }

            @Override
            public void onError(Throwable t) {
                failures.add(t);
            }

            @Override
            public void onCompleted() {
            }
        });
        if (!failures.isEmpty()) {
            throw failures.getFirst() instanceof RuntimeException r ? r : new IllegalStateException(failures.getFirst());
        }
        if (answers.size() != 1) {
            throw new IllegalStateException("the call answered " + answers.size() + " times");
        }
        return answers.getFirst();
    }
}
