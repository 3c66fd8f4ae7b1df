{{/*
The Pillar objects for agent.nodes, printed at the end of NOTES.txt as one YAML stream a user pipes
to kubectl apply: per storage node a PillarAgent, a PillarStore and a PillarStorageClass per backend
(both named <node>-<backend>), and a PillarProtocol per kind of backend it has (<node>-nvme-tcp for
zvols and LVs, <node>-nfs for datasets) at agent.nodes.<node>.address, else the Node's InternalIP
when Helm can read it. Without an address the protocol is left as a comment saying what to set.
*/}}
{{- define "pillar-csi.quickstartObjects" -}}
# pillar-csi objects (from agent.nodes; cluster-scoped)
{{- range $node := keys .Values.agent.nodes | sortAlpha }}
{{- $entry := get $.Values.agent.nodes $node }}
{{- $address := $entry.address | default "" }}
{{- if not $address }}
{{- with lookup "v1" "Node" "" $node }}
{{- range .status.addresses }}{{ if and (eq .type "InternalIP") (not $address) }}{{ $address = .address }}{{ end }}{{ end }}
{{- end }}
{{- end }}
{{- $block := false }}{{ $datasets := false }}
{{- range $entry.backends }}{{ if eq .type "zfs-dataset" }}{{ $datasets = true }}{{ else }}{{ $block = true }}{{ end }}{{ end }}
---
apiVersion: pillar.csi.io/v1alpha1
kind: PillarAgent
metadata:
  name: {{ $node }}
spec:
  nodeName: {{ $node }}
  port: {{ $.Values.agent.port }}
{{- if ne $.Values.tls.mode "none" }}
  tls:
    mode: secret
    secretName: {{ include "pillar-csi.agentNodeTlsSecret" (dict "root" $ "node" $node) }}
    serverName: {{ include "pillar-csi.agentIdentity" (dict "root" $ "node" $node) }}
{{- end }}
{{- range $entry.backends }}
---
apiVersion: pillar.csi.io/v1alpha1
kind: PillarStore
metadata:
  name: {{ $node }}-{{ .name }}
spec:
  agent: {{ $node }}
{{- if or (eq .type "lvm") (eq .type "lvm-thin") }}
  lvm:
    volumeGroup: {{ .volumeGroup }}
{{- if eq .type "lvm-thin" }}
    thinPool: {{ .thinPool }}
{{- end }}
    backend: {{ .name }}
{{- else }}
  zfs:
    pool: {{ .pool }}
{{- with .parentDataset }}
    parentDataset: {{ . }}
{{- end }}
{{- if eq .type "zfs-dataset" }}
    layout: dataset
{{- end }}
    backend: {{ .name }}
{{- end }}
---
apiVersion: pillar.csi.io/v1alpha1
kind: PillarStorageClass
metadata:
  name: {{ $node }}-{{ .name }}
spec:
  store: {{ $node }}-{{ .name }}
{{- if eq .type "zfs-dataset" }}
  protocol: {{ $node }}-nfs
{{- else }}
  protocol: {{ $node }}-nvme-tcp
  fsType: ext4
{{- end }}
  reclaimPolicy: Delete
  allowVolumeExpansion: true
{{- end }}
{{- if not $address }}
# No PillarProtocol for {{ $node }}: set agent.nodes.{{ $node }}.address to the IP the workers reach it at
# (helm upgrade), or write one with that IP (nvmeofTcp.bindAddress, nfs.serverAddress).
{{- else }}
{{- if $block }}
---
apiVersion: pillar.csi.io/v1alpha1
kind: PillarProtocol
metadata:
  name: {{ $node }}-nvme-tcp
spec:
  nvmeofTcp:
    bindAddress: {{ $address | quote }}
    port: 4420
    aclEnabled: true
{{- end }}
{{- if $datasets }}
---
apiVersion: pillar.csi.io/v1alpha1
kind: PillarProtocol
metadata:
  name: {{ $node }}-nfs
spec:
  nfs:
    serverAddress: {{ $address | quote }}
    version: "4.2"
{{- end }}
{{- end }}
{{- end }}
{{- end -}}
