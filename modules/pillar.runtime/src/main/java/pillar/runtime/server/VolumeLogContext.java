package pillar.runtime.server;

import com.google.protobuf.Descriptors;
import com.google.protobuf.Message;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.helidon.logging.common.HelidonMdc;

/**
 * Puts the volume a call is about into the logging context ({@code %X{volume}} in the log format)
 * while the call's handler runs, so every log line about a volume carries its ID. The ID is read
 * from the request's {@code volume_id} field, which every per-volume CSI and agent request has.
 */
public final class VolumeLogContext implements ServerInterceptor {
    /** The MDC key the text log format refers to: {@code "volume=<id> "}. */
    public static final String KEY = "volume";
    /** The MDC key holding the bare ID, for structured formats ({@link JsonLogFormatter}). */
    public static final String ID_KEY = "volume.id";

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                                                       ServerCallHandler<Q, R> next) {
        ServerCall.Listener<Q> delegate = next.startCall(call, headers);
        return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(delegate) {
            private String volume = "";

            @Override
            public void onMessage(Q message) {
                volume = volumeOf(message);
                within(() -> super.onMessage(message));
            }

            @Override
            public void onHalfClose() {
                within(super::onHalfClose);
            }

            @Override
            public void onComplete() {
                within(super::onComplete);
            }

            @Override
            public void onCancel() {
                within(super::onCancel);
            }

            private void within(Runnable action) {
                if (volume.isEmpty()) {
                    action.run();
                    return;
                }
                HelidonMdc.set(KEY, "volume=" + volume + " ");
                HelidonMdc.set(ID_KEY, volume);
                try {
                    action.run();
                } finally {
                    HelidonMdc.remove(KEY);
                    HelidonMdc.remove(ID_KEY);
                }
            }
        };
    }

    /** The request's {@code volume_id}, or empty; never longer than a volume ID may be. */
    static String volumeOf(Object message) {
        if (message instanceof Message m) {
            Descriptors.FieldDescriptor field = m.getDescriptorForType().findFieldByName("volume_id");
            if (field != null && field.getType() == Descriptors.FieldDescriptor.Type.STRING) {
                String id = (String) m.getField(field);
                // log only what could be an ID; hostile input is logged by the handler that rejects it
                return id.length() <= 128 && id.chars().allMatch(c -> c > 0x20 && c < 0x7f) ? id : "<invalid>";
            }
        }
        return "";
    }
}
