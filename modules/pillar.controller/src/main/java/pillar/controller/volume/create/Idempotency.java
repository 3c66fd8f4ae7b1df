package pillar.controller.volume.create;

import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import pillar.api.csi.v1.CapacityRange;
import pillar.runtime.server.CsiException;
import pillar.api.value.VolumeName;
import pillar.controller.crd.PillarVolumeState;
import pillar.controller.crd.PillarVolumeStateSpec;
import pillar.controller.crd.VolumeContentSource;
import pillar.controller.volume.request.Capabilities;
import pillar.controller.volume.request.Sizes;
import pillar.controller.volume.state.Records;

/**
 * Name idempotency of CreateVolume: a repeated request for an existing volume gets that volume
 * when it asks for the same thing (same name, same parameters, the same kind of volume, a size
 * range the volume's size fits); anything else is ALREADY_EXISTS, as the CSI spec says.
 */
final class Idempotency {
    private Idempotency() {
    }

    static void requireSame(PillarVolumeState state, VolumeName name, Capabilities.Requested capabilities, CapacityRange range,
                            Map<String, String> parameters, Optional<VolumeContentSource> source) {
        PillarVolumeStateSpec spec = state.getSpec();
        String id = state.getMetadata().getName();
        if (!name.value().equals(spec.getVolumeName())) {
            throw CsiException.alreadyExists("volume ID " + id + " belongs to the volume named " + spec.getVolumeName()
                    + ", not " + name);
        }
        if (!Objects.equals(spec.getParameters(), parameters)) {
            throw CsiException.alreadyExists("volume " + name + " exists with other parameters: " + spec.getParameters());
        }
        if (capabilities.mode() != spec.getVolumeMode() || !Objects.equals(capabilities.fsType().orElse(null), spec.getFsType())
                || !new HashSet<>(capabilities.accessModes()).equals(new HashSet<>(spec.getAccessModes()))) {
            throw CsiException.alreadyExists("volume " + name + " exists as " + spec.getVolumeMode()
                    + (spec.getFsType() == null ? "" : " " + spec.getFsType()) + " " + spec.getAccessModes());
        }
        if (!Objects.equals(spec.getContentSource(), source.orElse(null))) {
            throw CsiException.alreadyExists("volume " + name + " exists "
                    + (spec.getContentSource() == null ? "without a content source" : "made from " + spec.getContentSource()));
        }
        long size = Records.capacity(state);
        if (!Sizes.satisfies(size, range)) {
            throw CsiException.alreadyExists("volume " + name + " exists with " + size + " bytes, outside the range asked ("
                    + range.getRequiredBytes() + " to " + (range.getLimitBytes() == 0 ? "any" : range.getLimitBytes()) + ")");
        }
    }
}
