package pillar.agent.backend;

/**
 * Why a backend refuses new volumes, as GetCapabilities reports it (agent.proto's {@code Problem}).
 *
 * @param reason  UpperCamelCase, a Kubernetes condition reason (e.g. {@code ThinPoolNotZeroing})
 * @param message what is wrong and what to do about it
 */
public record BackendProblem(String reason, String message) {
    /** The reason of a thin pool that does not zero new chunks. */
    public static final String THIN_POOL_NOT_ZEROING = "ThinPoolNotZeroing";
}
