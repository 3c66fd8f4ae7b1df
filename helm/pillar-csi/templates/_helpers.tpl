{{/* The CSI driver name: fixed, the workloads report it (pillar.runtime.server.Driver.NAME). */}}
{{- define "pillar-csi.driverName" -}}pillar.csi.io{{- end -}}

{{/* The prefix of every object's name. */}}
{{- define "pillar-csi.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 40 | trimSuffix "-" -}}
{{- else if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* Labels every object carries. */}}
{{- define "pillar-csi.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/* The selector labels of one component: (dict "root" $ "component" "controller"). */}}
{{- define "pillar-csi.selectorLabels" -}}
app.kubernetes.io/name: {{ .root.Chart.Name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{/* Labels of a component's objects. */}}
{{- define "pillar-csi.componentLabels" -}}
{{ include "pillar-csi.labels" .root }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{/*
An image reference: (dict "root" $ "image" .Values.images.controller "defaultTag" "0.1.0").
global.imageRegistry replaces the image's registry; a digest wins over the tag.
*/}}
{{- define "pillar-csi.image" -}}
{{- $registry := .image.registry -}}
{{- if .root.Values.global.imageRegistry -}}{{- $registry = .root.Values.global.imageRegistry -}}{{- end -}}
{{- $name := .image.repository -}}
{{- if $registry -}}{{- $name = printf "%s/%s" (trimSuffix "/" $registry) .image.repository -}}{{- end -}}
{{- if .image.digest -}}
{{- printf "%s@%s" $name .image.digest -}}
{{- else -}}
{{- printf "%s:%s" $name (default .defaultTag .image.tag) -}}
{{- end -}}
{{- end -}}

{{/*
The image of a pillar-csi workload (its tag defaults to the chart's appVersion). The project publishes
no images to a public registry: rendering fails, naming what to set, unless the operator gives one.
*/}}
{{- define "pillar-csi.workloadImage" -}}
{{- if not (or .root.Values.global.imageRegistry .image.registry) -}}
{{- fail (printf "no registry for the image %s: set global.imageRegistry (or images.<workload>.registry) to the registry you pushed pillar-csi's images to (dev/bundle builds them; docs/install.md, \"Install (air-gapped)\")" .image.repository) -}}
{{- end -}}
{{- include "pillar-csi.image" (dict "root" .root "image" .image "defaultTag" .root.Chart.AppVersion) -}}
{{- end -}}

{{/* Whether controller and agents use mutual TLS. */}}
{{- define "pillar-csi.tlsEnabled" -}}
{{- if ne .Values.tls.mode "none" -}}true{{- end -}}
{{- end -}}

{{/* The Secret with the controller's client certificate. */}}
{{- define "pillar-csi.controllerTlsSecret" -}}
{{- if eq .Values.tls.mode "secrets" -}}
{{- .Values.tls.secrets.controller -}}
{{- else -}}
{{- printf "%s-controller-tls" (include "pillar-csi.fullname" .) -}}
{{- end -}}
{{- end -}}

{{/*
The Secret that holds one agent's certificate, key and CA (tls.crt, tls.key, ca.crt): (dict "root" $
"node" "storage-1"). Generated and cert-manager modes: <fullname>-agent-<node>-tls, each agent its
own; secrets mode: the one you supply (tls.secrets.agent), shared by all agents.
*/}}
{{- define "pillar-csi.agentNodeTlsSecret" -}}
{{- if eq .root.Values.tls.mode "secrets" -}}
{{- .root.Values.tls.secrets.agent -}}
{{- else -}}
{{- printf "%s-agent-%s-tls" (include "pillar-csi.fullname" .root) .node -}}
{{- end -}}
{{- end -}}

{{/*
A name or label value of at most 63 characters: the string itself when it fits, else its first 54
characters and 8 hex digits of its SHA-256 (two long names stay apart).
*/}}
{{- define "pillar-csi.name63" -}}
{{- if le (len .) 63 -}}
{{- . -}}
{{- else -}}
{{- printf "%s-%s" (regexReplaceAll "[-.]+$" (trunc 54 .) "") (sha256sum . | trunc 8) -}}
{{- end -}}
{{- end -}}

{{/* One storage node's agent DaemonSet: (dict "root" $ "node" "storage-1"), <fullname>-agent-<node>. */}}
{{- define "pillar-csi.agentDaemonSet" -}}
{{- include "pillar-csi.name63" (printf "%s-agent-%s" (include "pillar-csi.fullname" .root) .node) -}}
{{- end -}}

{{/*
The selector labels of one storage node's agent pods, (dict "root" $ "node" "storage-1"): the
component's (what the metrics Service selects, every node's) and the node's (its DaemonSet's own).
*/}}
{{- define "pillar-csi.agentSelectorLabels" -}}
{{ include "pillar-csi.selectorLabels" (dict "root" .root "component" "agent") }}
pillar.csi.io/storage-node: {{ include "pillar-csi.name63" .node }}
{{- end -}}

{{/*
The DNS name one agent's certificate carries and the controller verifies, (dict "root" $ "node"
"storage-1"): <node>.<tls.agentServerName>, each storage node its own; with tls.mode secrets, the
name of the one supplied certificate, tls.agentServerName.
*/}}
{{- define "pillar-csi.agentIdentity" -}}
{{- if eq .root.Values.tls.mode "secrets" -}}
{{- .root.Values.tls.agentServerName -}}
{{- else -}}
{{- printf "%s.%s" .node .root.Values.tls.agentServerName -}}
{{- end -}}
{{- end -}}

{{/* Every agent that gets a certificate of its own, sorted: the nodes of agent.nodes and tls.externalAgents. */}}
{{- define "pillar-csi.agentNames" -}}
{{- toJson (concat (keys .Values.agent.nodes) .Values.tls.externalAgents | uniq | sortAlpha) -}}
{{- end -}}

{{/* Where one agent's files are mounted in its container: (dict "root" $ "node" "storage-1"). */}}
{{- define "pillar-csi.agentTlsDir" -}}
{{- if eq .root.Values.tls.mode "secrets" -}}
{{- include "pillar-csi.tlsDir" .root -}}
{{- else -}}
{{- printf "%s/%s" (include "pillar-csi.tlsDir" .root) .node -}}
{{- end -}}
{{- end -}}

{{/* Where the TLS Secret is mounted in the controller and agent containers. */}}
{{- define "pillar-csi.tlsDir" -}}/etc/pillar-csi/tls{{- end -}}

{{/* The startup, liveness and readiness probes on a workload's Helidon health port. */}}
{{- define "pillar-csi.healthProbes" -}}
startupProbe:
  httpGet:
    path: /observe/health/live
    port: {{ .port }}
  periodSeconds: 2
  failureThreshold: 60
livenessProbe:
  httpGet:
    path: /observe/health/live
    port: {{ .port }}
  periodSeconds: 10
  timeoutSeconds: 5
  failureThreshold: 3
readinessProbe:
  httpGet:
    path: /observe/health/ready
    port: {{ .port }}
  periodSeconds: 5
  timeoutSeconds: 5
  failureThreshold: 3
{{- end -}}

{{/* The securityContext of an unprivileged container (the controller pod's). */}}
{{- define "pillar-csi.restrictedContainer" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
capabilities:
  drop: ["ALL"]
{{- end -}}

{{/*
"true" when the csi-snapshotter sidecar runs: snapshots.enabled true, or auto and the cluster serves
snapshot.storage.k8s.io/v1 VolumeSnapshot (the external-snapshotter's CRDs).
*/}}
{{- define "pillar-csi.snapshotsEnabled" -}}
{{- $enabled := toString .Values.snapshots.enabled -}}
{{- if eq $enabled "auto" -}}
{{- .Capabilities.APIVersions.Has "snapshot.storage.k8s.io/v1/VolumeSnapshot" -}}
{{- else -}}
{{- eq $enabled "true" -}}
{{- end -}}
{{- end -}}
