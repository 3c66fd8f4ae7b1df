package pillar.controller.crd;

/** The API group and version of every Pillar custom resource. */
public final class Pillar {
    /** The API group, also the CSI driver's name. */
    public static final String GROUP = "pillar.csi.io";
    public static final String VERSION = "v1alpha1";
    /** The {@code apiVersion} of every Pillar object. */
    public static final String API_VERSION = GROUP + "/" + VERSION;

    private Pillar() {
    }
}
