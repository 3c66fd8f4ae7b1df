package pillar.agent.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import pillar.agent.AgentMain;
import pillar.agent.backend.BackendVolume;
import pillar.agent.backend.KernelExports;
import pillar.agent.backend.VolumeBackend;
import pillar.agent.backend.VolumeSource;
import pillar.agent.config.AgentConfig;
import pillar.agent.config.BackendConfig;
import pillar.agent.configfs.FakeConfigfsTree;
import pillar.api.agent.v1.AgentServiceGrpc;
import pillar.api.agent.v1.BackendKind;
import pillar.api.agent.v1.CreateVolumeRequest;
import pillar.api.agent.v1.DeleteVolumeRequest;
import pillar.api.fencing.FencingToken;
import pillar.api.value.ByteSize;
import pillar.api.value.LifecycleUid;
import pillar.api.value.VolumeId;
import pillar.runtime.server.WorkloadServer;

/**
 * A clone holds its source's lock: a DeleteVolume of the source waits until the copy is done (an LVM
 * linear delete zeroes the LV, which must never run under a block copy reading it).
 */
class AgentCloneLockIT {
    private static final long MIB = 1L << 20;

    @TempDir
    Path dir;

    /** A backend whose clone blocks until released, and which records whether a delete came during one. */
    private static final class SlowCloneBackend implements VolumeBackend {
        final CountDownLatch cloning = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicBoolean inClone = new AtomicBoolean();
        final AtomicBoolean deletedDuringClone = new AtomicBoolean();
        private final Path dev;

        SlowCloneBackend(Path dev) {
            this.dev = dev;
        }

        @Override
        public String name() {
            return "fast";
        }

        @Override
        public BackendVolume create(VolumeId id, ByteSize size, Map<String, String> options, NonZeroingPool pool) {
            return new BackendVolume(id, size, dev.resolve(id.value()));
        }

        @Override
        public BackendVolume create(VolumeId id, ByteSize size, Map<String, String> options, NonZeroingPool pool, VolumeSource source) {
            inClone.set(true);
            cloning.countDown();
            try {
                assertThat(release.await(10, TimeUnit.SECONDS)).isTrue();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            } finally {
                inClone.set(false);
            }
            return new BackendVolume(id, size, dev.resolve(id.value()));
        }

        @Override
        public Optional<BackendVolume> find(VolumeId id) {
            return Optional.empty();
        }

        @Override
        public BackendVolume adopt(VolumeId id, ByteSize minSize, KernelExports exports) {
            throw new UnsupportedOperationException();
        }

        @Override
        public ByteSize expand(VolumeId id, ByteSize required) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void delete(VolumeId id) {
            deletedDuringClone.compareAndSet(false, inClone.get());
        }

        @Override
        public List<BackendVolume> list() {
            return List.of();
        }

        @Override
        public Capacity capacity() {
            return new Capacity(ByteSize.ofGiB(1), ByteSize.ofMiB(512));
        }
    }

    @Test
    void aDeleteOfTheSourceWaitsForTheCloneReadingIt() throws Exception {
        FakeConfigfsTree configfs = FakeConfigfsTree.create();
        BackendConfig backend = new BackendConfig("fast", BackendKind.BACKEND_KIND_LVM_LINEAR, "vg0", "");
        AgentConfig config = new AgentConfig("127.0.0.1", 0, dir.resolve("state"), configfs.root(), Optional.empty(), List.of(backend),
                "127.0.0.1", 0);
        SlowCloneBackend slow = new SlowCloneBackend(dir);
        LifecycleUid source = LifecycleUid.random();
        try (WorkloadServer agent = AgentMain.start(config, Map.of("fast", slow), configfs.target())) {
            ManagedChannel channel = Grpc.newChannelBuilderForAddress("127.0.0.1", agent.grpcPort(), InsecureChannelCredentials.create())
                    .build();
            ExecutorService threads = Executors.newFixedThreadPool(2); // the common pool may have one thread
            try {
                AgentServiceGrpc.AgentServiceBlockingStub stub = AgentServiceGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
                stub.createVolume(CreateVolumeRequest.newBuilder().setToken(FencingToken.of(source, 0).toProto()).setVolumeId("pvc-src")
                        .setBackend("fast").setSizeBytes(64 * MIB).build());
                CompletableFuture<?> clone = CompletableFuture.runAsync(() -> stub.createVolume(CreateVolumeRequest.newBuilder()
                        .setToken(FencingToken.of(LifecycleUid.random(), 0).toProto()).setVolumeId("pvc-clone").setBackend("fast")
                        .setSizeBytes(64 * MIB).setSource(pillar.api.agent.v1.VolumeSource.newBuilder().setVolumeId("pvc-src")).build()), threads);
                assertThat(slow.cloning.await(10, TimeUnit.SECONDS)).isTrue();
                CompletableFuture<?> delete = CompletableFuture.runAsync(() -> stub.deleteVolume(DeleteVolumeRequest.newBuilder()
                        .setToken(FencingToken.of(source, 1).toProto()).setVolumeId("pvc-src").setBackend("fast").build()), threads);

                Thread.sleep(300);
                assertThat(delete).as("the delete waits for the source's lock").isNotDone();
                slow.release.countDown();
                clone.get(10, TimeUnit.SECONDS);
                delete.get(10, TimeUnit.SECONDS);
                assertThat(slow.deletedDuringClone).as("deleted while the clone ran").isFalse();
            } finally {
                threads.shutdownNow();
                channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            }
        }
    }
}
