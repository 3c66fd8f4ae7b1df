package pillar.agent.backend.lvm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static pillar.agent.backend.BackendAssertions.assertFails;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.junit.jupiter.api.Test;

import pillar.agent.backend.BackendException.Kind;
import pillar.agent.backend.BackendException;
import pillar.agent.backend.BackendVolume;
import pillar.agent.backend.VolumeBackend.Capacity;
import pillar.agent.backend.VolumeBackend.NonZeroingPool;
import pillar.agent.backend.VolumeSource.Mode;
import pillar.agent.backend.VolumeSource;
import pillar.api.value.ByteSize;
import pillar.api.value.SnapshotId;
import pillar.api.value.VolumeId;

/**
 * A thin pool's over-provisioning ratio ({@link ThinProvisioning}): the fixture's 256 MiB pool {@code pool0}
 * takes thin LVs (snapshots and LVs of others included) adding up to its ratio times 256 MiB; a create, a
 * restore, a snapshot or a growth beyond it is NO_SPACE (RESOURCE_EXHAUSTED) and changes nothing, and
 * capacity reports what is left under it.
 */
class ThinOverProvisioningTest extends FakeLvmFixture {
    private static final VolumeId PVC3 = VolumeId.of("pvc-3");
    private static final SnapshotId SNAP = SnapshotId.of("snapshot-1");

    @Test
    void aCreateBeyondTheRatioIsNoSpaceNamingTheFiguresAndMakesNothing() {
        thin.create(PVC1, ByteSize.ofMiB(200), Map.of());

        assertFails(() -> thin.create(PVC2, ByteSize.ofMiB(100), Map.of()), Kind.NO_SPACE, "thin pool vg0/pool0 cannot take volume"
                + " pvc-2 of 100MiB: its thin volumes already add up to 200MiB of the 256MiB its over-provisioning ratio 1 allows"
                + " (1 x its data size 256MiB), 56MiB left");
        assertThat(lvm.exists("pvc-2")).isFalse();
        assertThat(lvm.creations("pvc-2")).isZero();
        assertThat(thin.create(PVC2, ByteSize.ofMiB(56), Map.of()).size()).isEqualTo(ByteSize.ofMiB(56)); // exactly the limit
    }

    @Test
    void aRetriedCreateOfAnExistingVolumeIsAdoptedWhenThePoolIsAtItsLimit() {
        BackendVolume first = thin.create(PVC1, ByteSize.ofMiB(256), Map.of());

        assertThat(thin.create(PVC1, ByteSize.ofMiB(256), Map.of())).isEqualTo(first);
        assertThat(lvm.creations("pvc-1")).isEqualTo(1);
    }

    @Test
    void aRatioAboveOneAdmitsThatMuchMore() {
        LvmBackend thin = backend(thinWithRatio("2.5")); // 640 MiB

        thin.create(PVC1, ByteSize.ofMiB(512), Map.of());
        thin.create(PVC2, ByteSize.ofMiB(128), Map.of());

        assertFails(() -> thin.create(PVC3, ByteSize.ofMiB(4), Map.of()), Kind.NO_SPACE, "640MiB its over-provisioning ratio 2.5 allows");
        assertThat(thin.capacity()).isEqualTo(new Capacity(ByteSize.ofMiB(256), ByteSize.ofMiB(0)));
    }

    @Test
    void everyThinLvOfThePoolCountsSnapshotsAndOthersIncluded() {
        lvm.addForeign("someone-elses", 64 * ByteSize.MIB, "pool0");
        lvm.addForeign("linear-lv", 512 * ByteSize.MIB, ""); // not in the pool: not counted
        thin.create(PVC1, ByteSize.ofMiB(100), Map.of());

        assertFails(() -> thin.snapshot(SNAP, PVC1), Kind.NO_SPACE, "cannot take snapshot snapshot-1 of 100MiB (a snapshot counts its"
                + " volume's size): its thin volumes already add up to 164MiB of the 256MiB");
        assertThat(lvm.names()).doesNotContain(LvmSnapshots.name(SNAP));

        LvmBackend roomier = backend(thinWithRatio("2")); // 512 MiB: 164 + 100 of the snapshot, 248 left
        roomier.snapshot(SNAP, PVC1);
        assertThat(roomier.capacity().available()).isEqualTo(ByteSize.ofMiB(248));
        assertFails(() -> roomier.create(PVC2, ByteSize.ofMiB(252), Map.of(), NonZeroingPool.REFUSE, new VolumeSource.FromSnapshot(SNAP,
                Mode.DEFAULT)), Kind.NO_SPACE, "cannot take volume pvc-2 of 252MiB");
        assertThat(lvm.exists("pvc-2")).isFalse();
        // a restore larger than its snapshot is admitted at its full size, its growth included
        assertThat(roomier.create(PVC2, ByteSize.ofMiB(200), Map.of(), NonZeroingPool.REFUSE, new VolumeSource.FromSnapshot(SNAP,
                Mode.DEFAULT)).size()).isEqualTo(ByteSize.ofMiB(200));
        assertFails(() -> roomier.create(PVC3, ByteSize.ofMiB(100), Map.of(), NonZeroingPool.REFUSE, new VolumeSource.FromVolume(PVC1,
                Mode.DEFAULT)), Kind.NO_SPACE, "48MiB left");
        assertThat(lvm.exists("pvc-3")).isFalse();
    }

    @Test
    void anExpandBeyondTheRatioIsNoSpaceAndLeavesTheSize() {
        thin.create(PVC1, ByteSize.ofMiB(128), Map.of());
        thin.create(PVC2, ByteSize.ofMiB(64), Map.of());

        assertFails(() -> thin.expand(PVC1, ByteSize.ofMiB(200)), Kind.NO_SPACE, "cannot take volume pvc-1 grown from 128MiB to 200MiB:"
                + " its thin volumes already add up to 192MiB of the 256MiB");
        assertThat(lvm.sizeOf("pvc-1")).isEqualTo(128 * ByteSize.MIB);
        assertThat(thin.expand(PVC1, ByteSize.ofMiB(192))).isEqualTo(ByteSize.ofMiB(192));
        assertThat(lvm.sizeOf("pvc-1")).isEqualTo(192 * ByteSize.MIB);
    }

    @Test
    void capacityIsWhatTheRatioLeavesWhenTheDataAreaHasMoreFree() {
        thin.create(PVC1, ByteSize.ofMiB(200), Map.of());
        lvm.writeToThinPool("pool0", 16 * ByteSize.MIB);

        // 240 MiB of the data area are free, but only 56 MiB of thin volumes are admitted
        assertThat(thin.capacity()).isEqualTo(new Capacity(ByteSize.ofMiB(256), ByteSize.ofMiB(56)));
    }

    /**
     * Two creates on one pool, through two backends naming it, the second started between the first's
     * reading of the pool and its lvcreate: it waits for the first, then finds no room. Without the pool's
     * admission lock both would read 0 of 256 MiB used and both would make 200 MiB.
     */
    @Test
    void concurrentCreatesCannotJointlyExceedTheLimit() throws Exception {
        LvmBackend other = backend(thinWithRatio("1"));
        other.capacity(); // learns the extent size, so that its create reads nothing before the admission
        CompletableFuture<BackendVolume> second = new CompletableFuture<>();
        lvm.afterNextLvsOfTheGroup(() -> {
            Thread.ofPlatform().start(() -> {
                try {
                    second.complete(other.create(PVC2, ByteSize.ofMiB(200), Map.of()));
                } catch (RuntimeException e) {
                    second.completeExceptionally(e);
                }
            });
            try {
                second.get(1, TimeUnit.SECONDS); // done only when nothing held it back
            } catch (TimeoutException | ExecutionException e) {
                // held back (or refused): the first create goes on
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });

        thin.create(PVC1, ByteSize.ofMiB(200), Map.of());

        assertThatThrownBy(() -> second.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class).cause()
                .isInstanceOfSatisfying(BackendException.class, e -> assertThat(e.kind()).isEqualTo(Kind.NO_SPACE))
                .hasMessageContaining("200MiB of the 256MiB");
        assertThat(lvm.exists("pvc-1")).isTrue();
        assertThat(lvm.exists("pvc-2")).isFalse();
    }
}
