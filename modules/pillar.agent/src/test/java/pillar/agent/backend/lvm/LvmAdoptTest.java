package pillar.agent.backend.lvm;

import static org.assertj.core.api.Assertions.assertThat;
import static pillar.agent.backend.BackendAssertions.assertFails;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import pillar.agent.backend.BackendException.Kind;
import pillar.agent.backend.BackendVolume;
import pillar.agent.backend.KernelExports;
import pillar.api.value.ByteSize;

/**
 * {@link LvmBackend#adopt} against the fake LVM: an LV made with a plain lvcreate is tagged in one lvchange and
 * keeps its bytes; a retry returns it; what is another installation's, of the wrong kind, too small, open or
 * exported is refused with its tags as they were.
 */
class LvmAdoptTest extends FakeLvmFixture {
    private static final List<String> OURS = List.of(LvmBackend.TAG, LvmBackend.INSTALLATION_TAG + "embedded");
    private static final byte[] DATA = "an operator's filesystem".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    @Test
    void aPlainLinearLvIsTaggedInOneLvchangeAndKeepsItsBytes() throws IOException {
        lvm.addForeign("pvc-1", 8 * ByteSize.MIB, "");
        Files.write(lvm.node("pvc-1"), DATA);

        BackendVolume volume = linear.adopt(PVC1, ByteSize.ofMiB(8), KernelExports.NONE);

        assertThat(volume).isEqualTo(new BackendVolume(PVC1, ByteSize.ofMiB(8), lvm.node("pvc-1")));
        assertThat(lvm.tags("pvc-1")).containsExactlyElementsOf(OURS);
        assertThat(lvm.argvs().stream().filter(a -> a.getFirst().equals("lvchange")).toList()).containsExactly(
                List.of("lvchange", "--addtag", "pillar-csi", "--addtag", "pillar-csi.installation:embedded", "vg0/pvc-1"));
        assertThat(Files.readAllBytes(lvm.node("pvc-1"))).isEqualTo(DATA);
        assertThat(linear.find(PVC1)).contains(volume);
    }

    @Test
    void aRetryReturnsTheAdoptedVolumeWithoutChangingIt() {
        lvm.addForeign("pvc-1", 8 * ByteSize.MIB, "");
        BackendVolume first = linear.adopt(PVC1, ByteSize.of(0), KernelExports.NONE);
        lvm.markBusy("pvc-1"); // exported since: a retry is not asked about its use

        BackendVolume again = linear.adopt(PVC1, ByteSize.of(0), KernelExports.NONE);

        assertThat(again).isEqualTo(first);
        assertThat(lvm.argvs().stream().filter(a -> a.getFirst().equals("lvchange"))).hasSize(1);
    }

    @Test
    void aThinLvOfTheBackendsPoolIsAdoptedAndAnInactiveOneActivated() {
        lvm.addForeign("pvc-1", 64 * ByteSize.MIB, "pool0");
        lvm.deactivate("pvc-1");

        BackendVolume volume = thin.adopt(PVC1, ByteSize.ofMiB(64), KernelExports.NONE);

        assertThat(volume).isEqualTo(new BackendVolume(PVC1, ByteSize.ofMiB(64), lvm.node("pvc-1")));
        assertThat(lvm.active("pvc-1")).isTrue();
        assertThat(lvm.tags("pvc-1")).containsExactlyElementsOf(OURS);
    }

    @Test
    void anotherInstallationsLvIsForeignAndKeepsItsTags() {
        List<String> staging = List.of(LvmBackend.TAG, LvmBackend.INSTALLATION_TAG + "staging");
        lvm.addTagged("pvc-1", 8 * ByteSize.MIB, "", staging);
        lvm.addTagged("pvc-2", 8 * ByteSize.MIB, "", List.of(LvmBackend.TAG));

        assertFails(() -> linear.adopt(PVC1, ByteSize.of(0), KernelExports.NONE), Kind.FOREIGN, "pillar-csi.installation:staging");
        assertFails(() -> linear.adopt(PVC2, ByteSize.of(0), KernelExports.NONE), Kind.FOREIGN, "without an installation tag");
        assertThat(lvm.tags("pvc-1")).containsExactlyElementsOf(staging);
        assertThat(lvm.tags("pvc-2")).containsExactly(LvmBackend.TAG);
        assertThat(lvm.programs()).doesNotContain("lvchange");
    }

    @Test
    void anLvOfAnotherKindOrNoneIsNotFound() {
        lvm.addForeign("pvc-1", 8 * ByteSize.MIB, "pool0");
        lvm.addForeign("pvc-2", 8 * ByteSize.MIB, "");

        assertFails(() -> linear.adopt(PVC1, ByteSize.of(0), KernelExports.NONE), Kind.NOT_FOUND, "a thin LV of thin pool pool0");
        assertFails(() -> thin.adopt(PVC2, ByteSize.of(0), KernelExports.NONE), Kind.NOT_FOUND, "a linear LV");
        assertFails(() -> linear.adopt(pillar.api.value.VolumeId.of("pool0"), ByteSize.of(0), KernelExports.NONE), Kind.NOT_FOUND,
                "a thin pool");
        assertFails(() -> linear.adopt(pillar.api.value.VolumeId.of("pvc-9"), ByteSize.of(0), KernelExports.NONE), Kind.NOT_FOUND,
                "no LV named pvc-9");
        assertThat(lvm.tags("pvc-1")).isEmpty();
        assertThat(lvm.tags("pvc-2")).isEmpty();
    }

    @Test
    void anLvSmallerThanAskedIsOutOfRangeAndUntouched() {
        lvm.addForeign("pvc-1", 8 * ByteSize.MIB, "");

        assertFails(() -> linear.adopt(PVC1, ByteSize.ofMiB(9), KernelExports.NONE), Kind.OUT_OF_RANGE, "smaller than the 9MiB");
        assertThat(lvm.tags("pvc-1")).isEmpty();
    }

    @Test
    void anOpenLvIsInUseAndUntouched() {
        lvm.addForeign("pvc-1", 8 * ByteSize.MIB, "");
        lvm.markBusy("pvc-1");

        assertFails(() -> linear.adopt(PVC1, ByteSize.of(0), KernelExports.NONE), Kind.IN_USE, "its device is open (lv_attr -wi-ao----)");
        assertThat(lvm.tags("pvc-1")).isEmpty();
    }

    @Test
    void anLvTheKernelExportsIsInUseAndTheExportsAreAskedWithItsDevice() {
        lvm.addForeign("pvc-1", 8 * ByteSize.MIB, "");
        List<Path> asked = new ArrayList<>();
        KernelExports nvmet = new KernelExports() {
            @Override
            public Optional<String> device(Path device) {
                asked.add(device);
                return Optional.of("nvmet subsystem testnqn has it as namespace 1");
            }

            @Override
            public Optional<String> directory(Path directory) {
                return Optional.empty();
            }
        };

        assertFails(() -> linear.adopt(PVC1, ByteSize.of(0), nvmet), Kind.IN_USE, "nvmet subsystem testnqn");
        assertThat(asked).containsExactly(lvm.node("pvc-1"));
        assertThat(lvm.tags("pvc-1")).isEmpty();
    }
}
