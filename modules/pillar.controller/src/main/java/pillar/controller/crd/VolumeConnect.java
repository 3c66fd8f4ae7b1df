package pillar.controller.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;

/** The initiator's reconnect and queue settings, frozen at creation from the PillarProtocol; unset: the kernel's. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class VolumeConnect {
    @JsonPropertyDescription("Seconds the initiator retries a lost controller before failing I/O; -1 forever.")
    @Min(-1)
    @Max(86400)
    private Integer ctrlLossTmo;

    @JsonPropertyDescription("Seconds between reconnect attempts.")
    @Min(1)
    @Max(3600)
    private Integer reconnectDelay;

    @JsonPropertyDescription("I/O queues per controller.")
    @Min(1)
    @Max(1024)
    private Integer nrIoQueues;

    public Integer getCtrlLossTmo() {
        return ctrlLossTmo;
    }

    public void setCtrlLossTmo(Integer ctrlLossTmo) {
        this.ctrlLossTmo = ctrlLossTmo;
    }

    public Integer getReconnectDelay() {
        return reconnectDelay;
    }

    public void setReconnectDelay(Integer reconnectDelay) {
        this.reconnectDelay = reconnectDelay;
    }

    public Integer getNrIoQueues() {
        return nrIoQueues;
    }

    public void setNrIoQueues(Integer nrIoQueues) {
        this.nrIoQueues = nrIoQueues;
    }
}
