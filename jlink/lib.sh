# Sourced by jlink/build and dev/lib/image.sh: what each workload's runtime holds and how it is launched.
# One source for the launch command line, so the tarball's launcher and the images' entry points agree.
# shellcheck shell=bash

# Where every runtime lives when it runs: /opt/pillar in the images, and on a storage host that runs
# the agent from its tarball. The AOT cache records its module path's absolute location (JDK 25
# accepts a moved runtime image but not a moved module path), so it is trained there (jlink/build
# mounts each runtime at this path in a private mount namespace); elsewhere the launcher still works,
# without the cache.
# shellcheck disable=SC2034  # read by the scripts that source this file
PILLAR_HOME=/opt/pillar

# the Maven module and main class of a workload (agent, node, controller)
workload_module() { echo "pillar.$1"; }
workload_main() {
    case "$1" in
        agent) echo pillar.agent/pillar.agent.AgentMain ;;
        node) echo pillar.node/pillar.node.NodeMain ;;
        controller) echo pillar.controller/pillar.controller.ControllerMain ;;
        *) echo "unknown workload: $1 (agent, node or controller)" >&2; return 2 ;;
    esac
}

# JDK modules not linked when only jdeps names them (a module descriptor that requires one wins: the
# node's jna-jpms requires java.desktop). Checked: each workload reaches readiness without them in
# the training run, and the bundle tests start them again.
#   java.desktop  12 MB; only java.beans in snakeyaml's bean introspector (Helidon reads YAML into
#                 maps, never beans) and Jackson's optional ConstructorProperties ("requires static").
# shellcheck disable=SC2034  # read by jlink/build
JDK_MODULES_EXCLUDED=(java.desktop)

# launch_args HOME WORKLOAD [AOT_FLAG]: the JVM's arguments (one per line) for a runtime laid out in
# HOME: conf/jvm.options (the memory and GC settings, path-free), the AOT cache, the module path
# (app/) and the main module. AOT_FLAG is -XX:AOTCache (default) or -XX:AOTCacheOutput (training).
launch_args() {
    local home=$1 workload=$2 aot=${3:--XX:AOTCache}
    echo "@$home/conf/jvm.options"
    echo "$aot=$home/lib/pillar.aot"
    # the node's JNA loads the native dispatch library linked into the runtime, never unpacks to /tmp
    if [ "$workload" = node ]; then
        echo "-Djna.boot.library.path=$home/lib"
        echo "-Djna.nounpack=true"
    fi
    echo "-p"
    echo "$home/app"
    echo "--add-modules"
    echo "ALL-MODULE-PATH"
    echo "-m"
    workload_main "$workload"
}

# The memory and GC settings of every workload (conf/jvm.options); measured by jlink/build and the
# bundle tests (idle RSS, launch to ready). See jlink/README.md for the reasons. With them goes
# MALLOC_ARENA_MAX=2 in the environment (the launcher and the images set it): fewer glibc arenas.
# Heap free ratios 10-30 % (defaults 40-70 %) and no ShrinkHeapInSteps: at each full GC the serial
# collector gives back what the heap holds beyond ~1.4x the live data (by default it shrinks by 0, 10,
# 40 % of that on the first full GCs only), so a burst of calls (1,000 volumes attached at once) does
# not leave the process at its high-water mark (measured: the node kept 58 MB of heap for 10 MB live).
# AOTAdapterCaching off: JDK 25.0.3 warns at every start that it cannot link a cached adapter
# ("Saved blob's name ... is different"); off, the warning goes and start-up is no slower (measured).
# AOTClassLinking off: with it, JDK 25.0.3 crashed the controller at every start (SIGSEGV in
# AOTLinkedClassBulkLoader::load_classes_impl, before main) with one of its trained caches; without it
# the cache still holds the loaded and parsed classes, and start-up was no slower (measured: agent
# 1084/677/1325 ms vs 734/682/1167 ms with it, host load 6-8).
# shellcheck disable=SC2034  # read by jlink/build, jlink/train.sh and dev/lib/image.sh
# Heap: 64m for the agent and the node (their state is per volume on disk, not in memory); 192m for
# the controller, whose informers hold every PillarVolumeState: at 10,000 volumes 64m ran out
# (dev/bench --group 5: OutOfMemoryError while the states were listed; 8.3 KiB live per volume,
# and a relist holds the old and the new list at once). At 10,000 volumes the controller's RSS
# was 314 MiB (live heap 104 MiB); the chart's controller limit is 512Mi.
MALLOC_ARENAS=2
jvm_options() {
    local workload=$1
    case "$workload" in
        controller) echo "-Xmx192m" ;;
        *) echo "-Xmx64m" ;;
    esac
    cat <<'EOF'
-XX:+UseSerialGC
-Xms8m
-XX:MinHeapFreeRatio=10
-XX:MaxHeapFreeRatio=30
-XX:-ShrinkHeapInSteps
-XX:MaxMetaspaceSize=96m
-XX:ReservedCodeCacheSize=32m
-XX:TieredStopAtLevel=1
-XX:CICompilerCount=1
-Xss512k
-XX:-UsePerfData
-XX:TrimNativeHeapInterval=2000
-XX:+ExitOnOutOfMemoryError
-XX:+UnlockDiagnosticVMOptions
-XX:-AOTAdapterCaching
-XX:-AOTClassLinking
EOF
    case "$workload" in
        agent | node) echo "--enable-native-access=com.sun.jna,io.grpc.netty.shaded" ;;
        *) echo "--enable-native-access=io.grpc.netty.shaded" ;;
    esac
}
