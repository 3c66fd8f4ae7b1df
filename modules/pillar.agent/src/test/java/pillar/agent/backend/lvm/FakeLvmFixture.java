package pillar.agent.backend.lvm;

import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

import pillar.agent.backend.BlockCopy;
import pillar.agent.config.BackendConfig;
import pillar.api.agent.v1.BackendKind;
import pillar.api.value.ByteSize;
import pillar.api.value.VolumeId;

/**
 * The LVM backend tests' bed: a fake 1 GiB volume group {@code vg0} with a 256 MiB thin pool
 * {@code pool0} (768 MiB free for linear LVs), a linear backend {@code fast} and a thin one {@code thin} (over-provisioning
 * ratio 1, the default: its thin volumes add up to 256 MiB at most).
 */
abstract class FakeLvmFixture {
    static final VolumeId PVC1 = VolumeId.of("pvc-1");
    static final VolumeId PVC2 = VolumeId.of("pvc-2");
    static final Duration TIMEOUT = Duration.ofSeconds(5);
    /** Long enough for the fixture's clones to be whole within the call that starts them. */
    static final Duration CALL_WAIT = Duration.ofSeconds(20);

    private final java.util.List<LvmBackend> made = new java.util.ArrayList<>();

    @TempDir
    Path dev;

    FakeLvm lvm;
    LinearLvmBackend linear;
    ThinLvmBackend thin;

    @BeforeEach
    void volumeGroupWithAThinPool() {
        lvm = new FakeLvm("vg0", ByteSize.GIB, dev).withThinPool("pool0", 256 * ByteSize.MIB);
        linear = backend(new BackendConfig("fast", BackendKind.BACKEND_KIND_LVM_LINEAR, "vg0", ""));
        thin = backend(new BackendConfig("thin", BackendKind.BACKEND_KIND_LVM_THIN, "vg0", "pool0"));
    }

    /** A thin backend {@code thin} on {@code pool0} whose thin volumes may add up to {@code ratio} times its size. */
    static BackendConfig thinWithRatio(String ratio) {
        return new BackendConfig("thin", BackendKind.BACKEND_KIND_LVM_THIN, "vg0", "pool0", new java.math.BigDecimal(ratio));
    }

    /** The backend of {@code config}, as the subclass its kind makes ({@link LvmBackend#of}). */
    <T extends LvmBackend> T backend(BackendConfig config) {
        return backend(config, System::nanoTime);
    }

    /** A backend whose linear clones copy the fake's node files (buffered) on this clock. */
    <T extends LvmBackend> T backend(BackendConfig config, java.util.function.LongSupplier clock) {
        return backend(config, BlockCopy.BUFFERED, clock, CALL_WAIT);
    }

    /**
     * A backend whose linear clones copy through {@code devices} on this clock, each CreateVolume waiting
     * {@code callWait} for the copy; closed after the test (its copies stopped).
     */
    @SuppressWarnings("unchecked")
    <T extends LvmBackend> T backend(BackendConfig config, BlockCopy.Devices devices, java.util.function.LongSupplier clock, Duration callWait) {
        T backend = (T) LvmBackend.of(config, lvm, dev, dev.resolveSibling("sys"), TIMEOUT, Duration.ofSeconds(2),
                pillar.agent.state.InstallationId.EMBEDDED, devices, clock, callWait);
        made.add(backend);
        return backend;
    }

    /** Closes {@code backend} after the test (its background jobs stopped). */
    void made(LvmBackend backend) {
        made.add(backend);
    }

    @AfterEach
    void stopTheCopies() {
        made.forEach(LvmBackend::close);
    }
}
