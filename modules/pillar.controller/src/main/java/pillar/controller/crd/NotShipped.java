package pillar.controller.crd;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import io.fabric8.crd.generator.annotation.PreserveUnknownFields;

/**
 * The settings of a protocol that is designed but does not ship yet: any object is kept as written
 * (so that its presence can be refused with a message rather than silently pruned).
 */
@PreserveUnknownFields
@JsonIgnoreProperties(ignoreUnknown = true)
public class NotShipped {
}
