package pillar.controller.crd;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.ValidationRule;

/**
 * A ZFS layout, and the defaults of the volumes created in it: zvols (block devices, exported over
 * NVMe-oF/TCP) or filesystem datasets (exported over NFS, their size a refquota). A dataset store
 * takes no zvol settings: {@code volblocksize} and {@code sparse: true} are refused with it.
 */
@ValidationRule(value = "!has(self.layout) || self.layout != 'dataset' || (!has(self.volblocksize) && (!has(self.sparse) || !self.sparse))",
        message = "layout dataset takes no volblocksize and no sparse: true (zvol settings)")
public class ZfsStore {
    /** What each volume is: a zvol or a child filesystem dataset of the parent. */
    public enum Layout {
        @JsonProperty("zvol")
        ZVOL,
        @JsonProperty("dataset")
        DATASET
    }

    /** The compression of new zvols; unset inherits the parent dataset's. */
    public enum Compression {
        @JsonProperty("on")
        ON,
        @JsonProperty("off")
        OFF,
        @JsonProperty("lz4")
        LZ4,
        @JsonProperty("zstd")
        ZSTD,
        @JsonProperty("gzip")
        GZIP,
        @JsonProperty("zle")
        ZLE
    }

    @JsonPropertyDescription("The ZFS pool.")
    @Required
    @Pattern(Grammars.POOL_NAME)
    private String pool;

    @JsonPropertyDescription("The parent dataset below the pool (k8s or k8s/volumes); unset: the pool itself.")
    @Pattern(Grammars.DATASET_PATH)
    private String parentDataset;

    @JsonPropertyDescription("The name of the matching backend in the agent's configuration.")
    @Required
    @Pattern(Grammars.DNS_LABEL)
    private String backend;

    @JsonPropertyDescription("zvol: each volume a zvol (block, NVMe-oF/TCP); dataset: each volume a child filesystem"
            + " dataset with refquota as its size (NFS). The agent's backend must be of the same kind.")
    @Default("zvol")
    @ValidationRule(value = "self == oldSelf", message = "layout is immutable: volumes exist in the one it was created with")
    private Layout layout = Layout.ZVOL;

    @JsonPropertyDescription("Sparse (thin) zvols, without a reservation. Default: false (space is reserved).")
    @Default("false")
    private Boolean sparse = false;

    @JsonPropertyDescription("The volblocksize of new zvols (4K to 128K); unset: ZFS's default.")
    @Pattern(Grammars.VOLBLOCKSIZE)
    private String volblocksize;

    @JsonPropertyDescription("The compression of new zvols; unset: inherited from the parent dataset.")
    private Compression compression;

    public String getPool() {
        return pool;
    }

    public void setPool(String pool) {
        this.pool = pool;
    }

    public String getParentDataset() {
        return parentDataset;
    }

    public void setParentDataset(String parentDataset) {
        this.parentDataset = parentDataset;
    }

    public String getBackend() {
        return backend;
    }

    public void setBackend(String backend) {
        this.backend = backend;
    }

    public Layout getLayout() {
        return layout;
    }

    public void setLayout(Layout layout) {
        this.layout = layout;
    }

    /** Whether volumes are filesystem datasets (an unset layout is zvol). */
    public boolean datasets() {
        return layout == Layout.DATASET;
    }

    public Boolean getSparse() {
        return sparse;
    }

    public void setSparse(Boolean sparse) {
        this.sparse = sparse;
    }

    public String getVolblocksize() {
        return volblocksize;
    }

    public void setVolblocksize(String volblocksize) {
        this.volblocksize = volblocksize;
    }

    public Compression getCompression() {
        return compression;
    }

    public void setCompression(Compression compression) {
        this.compression = compression;
    }
}
