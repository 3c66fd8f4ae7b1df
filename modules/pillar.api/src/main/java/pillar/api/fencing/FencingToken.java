package pillar.api.fencing;

import pillar.api.value.InvalidValueException;
import pillar.api.value.LifecycleUid;

/**
 * Carried by every agent call that changes a volume's resources: the volume's lifecycle identity
 * (the UID of its PillarVolumeState) and its publication generation, which the controller bumps by
 * compare-and-swap on every publication change.
 */
public record FencingToken(LifecycleUid lifecycle, long generation) {
    public FencingToken {
        if (lifecycle == null) {
            throw new InvalidValueException("token.lifecycle_uid", "must be set");
        }
        if (generation < 0) {
            throw new InvalidValueException("token.publication_generation", "must not be negative");
        }
    }

    public static FencingToken of(LifecycleUid lifecycle, long generation) {
        return new FencingToken(lifecycle, generation);
    }

    /** The token after one more publication change. */
    public FencingToken next() {
        return new FencingToken(lifecycle, Math.addExact(generation, 1));
    }

    /**
     * Reads the wire form. An absent or empty token is not an error of grammar but a fencing
     * violation, so callers check {@code hasToken()} first and reject with
     * {@link FencingViolation.Reason#MISSING_TOKEN}; here a present token must be well formed.
     */
    public static FencingToken fromProto(pillar.api.agent.v1.FencingToken proto) {
        long generation = proto.getPublicationGeneration();
        if (generation < 0) {
            // uint64 above Long.MAX_VALUE: never produced by the controller
            throw new InvalidValueException("token.publication_generation", "is out of range");
        }
        return new FencingToken(LifecycleUid.of(proto.getLifecycleUid()), generation);
    }

    public pillar.api.agent.v1.FencingToken toProto() {
        return pillar.api.agent.v1.FencingToken.newBuilder()
                .setLifecycleUid(lifecycle.value())
                .setPublicationGeneration(generation)
                .build();
    }

    @Override
    public String toString() {
        return lifecycle + "@" + generation;
    }
}
