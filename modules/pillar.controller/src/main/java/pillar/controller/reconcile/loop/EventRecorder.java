package pillar.controller.reconcile.loop;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.logging.Logger;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;

/**
 * Records Kubernetes Events about Pillar objects, so that {@code kubectl describe} and
 * {@code kubectl get events} show what the controller did and what failed. The objects are
 * cluster-scoped; their events live in the controller's namespace. Recording is best effort: a
 * failure is logged and never fails a reconcile.
 */
public final class EventRecorder implements Events {
    /** The component named in every event. */
    public static final String COMPONENT = "pillar-controller";
    private static final Logger LOG = Logger.getLogger(EventRecorder.class.getName());

    private final KubernetesClient client;
    private final String namespace;

    public EventRecorder(KubernetesClient client, String namespace) {
        this.client = client;
        this.namespace = namespace;
    }

    @Override
    public void normal(HasMetadata about, String reason, String message) {
        record(about, "Normal", reason, message);
    }

    @Override
    public void warning(HasMetadata about, String reason, String message) {
        record(about, "Warning", reason, message);
    }

    private void record(HasMetadata about, String type, String reason, String message) {
        String now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
        String name = about.getMetadata().getName();
        Event event = new EventBuilder()
                .withNewMetadata()
                .withName((name.length() > 200 ? name.substring(0, 200) : name) + "." + Long.toHexString(System.nanoTime()))
                .withNamespace(namespace)
                .endMetadata()
                .withInvolvedObject(new ObjectReferenceBuilder()
                        .withApiVersion(about.getApiVersion())
                        .withKind(about.getKind())
                        .withName(name)
                        .withUid(about.getMetadata().getUid())
                        .withResourceVersion(about.getMetadata().getResourceVersion())
                        .build())
                .withType(type)
                .withReason(reason)
                .withMessage(message.length() > 1024 ? message.substring(0, 1021) + "..." : message)
                .withFirstTimestamp(now)
                .withLastTimestamp(now)
                .withCount(1)
                .withNewSource().withComponent(COMPONENT).endSource()
                .withReportingComponent(COMPONENT)
                .build();
        try {
            client.v1().events().inNamespace(namespace).resource(event).create();
        } catch (KubernetesClientException e) {
            LOG.warning(() -> "could not record event " + reason + " about " + about.getKind() + " " + name + ": "
                    + e.getMessage());
        }
    }
}
