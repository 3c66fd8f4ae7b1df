# Sourced by dev/bundle: builds the three OCI images without a container engine. Debian packages
# (mmdebstrap, from the mirror this host's apt uses) make the root file systems, umoci turns them into
# layers of one OCI layout, skopeo writes each image as an oci-archive file.
#
# Layers, bottom up (every image starts from the same first layer, so a registry and a node keep it once):
#   1 base     libc6, libgcc-s1, base-files, /etc/passwd with root and nonroot (65532), /tmp:
#              what the JVM needs (the jlink runtime links only libc); extracted, no dpkg database
#   2 tools    agent: lvm2, zfsutils-linux (contrib), kmod, nfs-kernel-server (exportfs, rpc.nfsd, rpc.mountd:
#              the chart's agent.nfs) and mount (nfsd's filesystem in each container's /proc);
#              node: e2fsprogs, xfsprogs, util-linux, kmod;
#              a real dpkg install ("essential" variant: no apt), stored as its difference from layer 1
#              (the controller has none)
#   3 runtime  /opt/pillar: the workload's jlink runtime, module path, AOT cache and launcher
# Root file systems are cached in $IMAGE_CACHE, keyed by suite, variant, package list and sources.
# shellcheck shell=bash

IMAGE_CACHE=${IMAGE_CACHE:-/var/cache/pillar-csi-images}
BASE_PACKAGES=(libc6 libgcc-s1 base-files)
AGENT_PACKAGES=(lvm2 zfsutils-linux kmod nfs-kernel-server mount)
NODE_PACKAGES=(e2fsprogs xfsprogs util-linux kmod)
NONROOT_UID=65532

# debian_sources FILE [SUITE]: this host's Debian sources (deb822 or one-line), with contrib added (ZFS);
# with SUITE, for that suite instead of the host's (its -updates and -security too), from the same archives
debian_sources() {
    local out=$1 suite=${2:-} host f
    : > "$out"
    for f in /etc/apt/sources.list.d/debian.sources /etc/apt/sources.list; do
        [ -f "$f" ] || continue
        if [[ $f == *.sources ]]; then
            sed -e 's/^Components:.*/Components: main contrib/' "$f" >> "$out"
        else
            grep -E '^deb .*/debian(-security)?/? ' "$f" | sed -E 's/ main( .*)?$/ main contrib/' >> "$out" || true
        fi
        echo >> "$out"
    done
    grep -qE '^(URIs:|deb )' "$out" || { echo "error: no Debian sources in /etc/apt (needed by mmdebstrap)" >&2; return 1; }
    host=$(. /etc/os-release && echo "$VERSION_CODENAME")
    if [ -n "$suite" ] && [ "$suite" != "$host" ]; then
        sed -i -E "/^(Suites:|deb )/s/\\b$host(-[a-z]+)?\\b/$suite\\1/g" "$out"
    fi
}

# debian_root SUITE TARGET SOURCES VARIANT PACKAGES [MMDEBSTRAP_OPTION...]: mmdebstrap of SUITE into
# TARGET (a directory, or a tar file by its name) with PACKAGES (comma-separated), without recommended
# packages, documentation but the copyright files, manual pages, translations or apt's lists; given up
# after 30 minutes
debian_root() {
    local suite=$1 target=$2 sources=$3 variant=$4 packages=$5
    shift 5
    # shellcheck disable=SC2016  # mmdebstrap's hooks expand "$1" (the root) themselves
    timeout 1800 mmdebstrap --quiet --variant="$variant" --components=main,contrib --include="$packages" "$@" \
        --aptopt='APT::Install-Recommends "false"' \
        --customize-hook='find "$1/usr/share/doc" -type f ! -name copyright -delete 2>/dev/null || true' \
        --customize-hook='rm -rf "$1/usr/share/man" "$1/usr/share/info" "$1/usr/share/locale" "$1/var/cache/apt" "$1/var/lib/apt/lists"' \
        "$suite" "$target" "$sources" >&2
}

# rootfs_tar VARIANT PACKAGES...: prints the path of a cached root file system tar, building it if needed
rootfs_tar() {
    local variant=$1 suite key tar sources
    shift
    suite=$(. /etc/os-release && echo "$VERSION_CODENAME")
    sources=$(mktemp --suffix=.sources)
    debian_sources "$sources"
    key=$( { echo "$suite $variant $*"; cat "$sources"; } | sha256sum | cut -c1-16)
    tar=$IMAGE_CACHE/rootfs-$variant-$key.tar
    # merged /usr (bookworm's layout) by the symlinks debootstrap makes, so that layer 2 (a dpkg
    # install) lines up with layer 1 (extracted); "essential" also records usr-is-merged (not usrmerge,
    # whose perl would weigh 50 MB)
    local hook=(--setup-hook=/usr/share/mmdebstrap/hooks/merged-usr/setup00.sh)
    [ "$variant" = extract ] || hook=(--hook-dir=/usr/share/mmdebstrap/hooks/merged-usr)
    if [ -s "$tar" ]; then
        echo "image: cached root file system $tar ($variant: $*)" >&2
    else
        echo "image: mmdebstrap $suite --variant=$variant: $*" >&2
        mkdir -p "$IMAGE_CACHE"
        SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-0} debian_root "$suite" "$tar.tmp.tar" "$sources" "$variant" \
            "$(IFS=,; echo "$*")" "${hook[@]}"
        mv "$tar.tmp.tar" "$tar"
    fi
    rm -f "$sources"
    echo "$tar"
}

# the images' dates: the source's (SOURCE_DATE_EPOCH, the last commit's in dev/bundle)
created() { date -u -d "@${SOURCE_DATE_EPOCH:-0}" +%Y-%m-%dT%H:%M:%SZ; }

# fill_rootfs DIR TAR: DIR becomes exactly the content of TAR
fill_rootfs() {
    local dir=$1 tar=$2
    rm -rf "$dir"
    mkdir -p "$dir"
    tar -C "$dir" --numeric-owner -xpf "$tar"
}

# base_layer LAYOUT: the image "base" (layer 1) in the OCI layout
base_layer() {
    local layout=$1 bundle tar
    tar=$(rootfs_tar extract "${BASE_PACKAGES[@]}")
    bundle=$(mktemp -d)
    umoci new --image "$layout:base"
    umoci unpack --image "$layout:base" "$bundle/b"
    fill_rootfs "$bundle/b/rootfs" "$tar"
    local root=$bundle/b/rootfs
    printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:%s:%s:nonroot:/home/nonroot:/sbin/nologin\n' \
        "$NONROOT_UID" "$NONROOT_UID" > "$root/etc/passwd"
    printf 'root:x:0:\nnonroot:x:%s:\n' "$NONROOT_UID" > "$root/etc/group"
    mkdir -p "$root/tmp" "$root/root" "$root/home/nonroot"
    chmod 1777 "$root/tmp"
    chown "$NONROOT_UID:$NONROOT_UID" "$root/home/nonroot"
    umoci repack --image "$layout:base" --history.created "$(created)" \
        --history.comment "base: ${BASE_PACKAGES[*]} (mmdebstrap extract)" "$bundle/b"
    rm -rf "$bundle"
}

# tools_layer LAYOUT TAG PACKAGES...: TAG = base + the difference to a dpkg-installed root file system
tools_layer() {
    local layout=$1 tag=$2 bundle tar
    shift 2
    tar=$(rootfs_tar essential "${BASE_PACKAGES[@]}" "$@")
    bundle=$(mktemp -d)
    umoci unpack --image "$layout:base" "$bundle/b"
    fill_rootfs "$bundle/b/rootfs" "$tar"
    umoci repack --image "$layout:$tag" --history.created "$(created)" \
        --history.comment "tools: $* (mmdebstrap essential)" "$bundle/b"
    rm -rf "$bundle"
}

# runtime_layer LAYOUT FROM TAG WORKLOAD RUNTIME_DIR VERSION REVISION: TAG = FROM + /opt/pillar, configured
runtime_layer() {
    local layout=$1 from=$2 tag=$3 workload=$4 runtime=$5 version=$6 revision=$7 user=0:0 arg
    local entry=(--config.entrypoint "$PILLAR_HOME/bin/java")
    [ "$workload" = controller ] && user=$NONROOT_UID:$NONROOT_UID
    local bundle
    bundle=$(mktemp -d)
    # unpack and repack (umoci 0.4.7's insert leaves the layer's tar without its end: a truncated archive)
    umoci unpack --image "$layout:$from" "$bundle/b"
    mkdir -p "$bundle/b/rootfs$PILLAR_HOME"
    # owned by root, read-only for the workload (the controller's user can read, not change, it); the
    # files keep their dates (the AOT cache checks the module path's)
    cp -a "$runtime/." "$bundle/b/rootfs$PILLAR_HOME/"
    chown -R 0:0 "$bundle/b/rootfs$PILLAR_HOME"
    umoci repack --image "$layout:$tag" --history.created "$(created)" --history.comment "pillar-$workload runtime" "$bundle/b"
    rm -rf "$bundle"
    while IFS= read -r arg; do entry+=(--config.entrypoint "$arg"); done < <(launch_args "$PILLAR_HOME" "$workload")
    umoci config --image "$layout:$tag" --no-history --clear=config.entrypoint --clear=config.cmd \
        "${entry[@]}" --config.user "$user" --config.workingdir / --config.stopsignal SIGTERM \
        --config.env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        --config.env "MALLOC_ARENA_MAX=$MALLOC_ARENAS" \
        --config.label "org.opencontainers.image.title=pillar-$workload" \
        --config.label "org.opencontainers.image.description=pillar-csi $workload (NVMe-oF/TCP CSI driver)" \
        --config.label "org.opencontainers.image.version=$version" \
        --config.label "org.opencontainers.image.revision=$revision" \
        --config.label "org.opencontainers.image.vendor=pillar-csi" \
        --config.label "io.pillarcsi.workload=$workload" \
        --created "$(created)" --author pillar-csi
}

# build_images OUT_DIR TAG VERSION REVISION: OUT_DIR/pillar-{agent,node,controller}-TAG.oci.tar, each
# image named TAG in its archive (the tag the chart pulls: its appVersion), labelled VERSION (the build's)
build_images() {
    local out=$1 tag=$2 version=$3 revision=$4 layout w
    layout=$(mktemp -d)/layout
    umoci init --layout "$layout"
    base_layer "$layout"
    tools_layer "$layout" agent-tools "${AGENT_PACKAGES[@]}"
    tools_layer "$layout" node-tools "${NODE_PACKAGES[@]}"
    runtime_layer "$layout" agent-tools agent agent jlink/target/pillar-agent "$version" "$revision"
    runtime_layer "$layout" node-tools node node jlink/target/pillar-node "$version" "$revision"
    runtime_layer "$layout" base controller controller jlink/target/pillar-controller "$version" "$revision"
    umoci gc --layout "$layout"
    for w in agent node controller; do
        rm -f "$out/pillar-$w-$tag.oci.tar"
        skopeo copy --quiet "oci:$layout:$w" "oci-archive:$out/pillar-$w-$tag.oci.tar:$tag"
        echo "image: pillar-$w-$tag.oci.tar $(du -m "$out/pillar-$w-$tag.oci.tar" | cut -f1) MiB"
    done
    rm -rf "$(dirname "$layout")"
}
