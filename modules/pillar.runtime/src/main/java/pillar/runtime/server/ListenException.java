package pillar.runtime.server;

/**
 * A workload could not listen on one of its addresses within its patience (the address is in use, or
 * cannot be bound at all): the message names the address, the cause and, when it is in use, who holds
 * it. The workload stops with it rather than run without an endpoint.
 */
public final class ListenException extends RuntimeException {
    public ListenException(String message) {
        super(message);
    }
}
