/**
 * The Pillar custom resources, group {@code pillar.csi.io}, version {@code v1alpha1}, all
 * cluster-scoped with a status subresource: {@link pillar.controller.crd.PillarAgent},
 * {@link pillar.controller.crd.PillarStore}, {@link pillar.controller.crd.PillarProtocol},
 * {@link pillar.controller.crd.PillarStorageClass}, and the internal
 * {@link pillar.controller.crd.PillarVolumeState}, the CSI Controller service's durable record of each volume.
 *
 * <p>These classes are the one source of truth of the CRDs: the build generates the chart's CRD
 * YAML from them (fabric8 crd-generator-maven-plugin, OpenAPI validation and CEL rules from the
 * annotations). They are plain JSON bindings: a field the user left out is {@code null} here, as it
 * is in JSON. Nothing reads them unvalidated: {@link pillar.controller.crd.SpecValidator} checks a
 * spec completely (the schema and CEL rules do not run on every API server, nor in tests) before a
 * reconciler acts on it. {@link pillar.controller.crd.StorageClassParameters} is the contract between
 * the generated StorageClass and the CSI Controller service.
 */
package pillar.controller.crd;
