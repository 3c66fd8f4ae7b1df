# Sourced by the dev/ scripts: finds a JDK 21+ (fetches Debian 13's if need be), and times stages.
# shellcheck shell=bash

# Sets JAVA_HOME to a JDK 21 or newer: $JAVA_HOME if it qualifies, else the newest under /usr/lib/jvm,
# else Debian 13's JDK 25, fetched once into a cache (dev/lib/jdk.sh; the fetch needs root).
find_jdk() {
    local candidate version best="" best_version=0
    for candidate in "${JAVA_HOME:-}" /usr/lib/jvm/*; do
        if [ -z "$candidate" ] || [ ! -x "$candidate/bin/javac" ]; then continue; fi
        version=$("$candidate/bin/java" -XshowSettings:properties -version 2>&1 \
            | sed -n 's/^ *java.specification.version = \([0-9]*\).*/\1/p')
        if [ -n "$version" ] && [ "$version" -ge 21 ] && [ "$version" -gt "$best_version" ]; then
            best=$candidate best_version=$version
        fi
        # an explicit JAVA_HOME that qualifies wins
        if [ "$candidate" = "${JAVA_HOME:-}" ] && [ -n "$best" ]; then break; fi
    done
    if [ -z "$best" ]; then
        # shellcheck source=dev/lib/jdk.sh
        source "$(dirname "${BASH_SOURCE[0]}")/jdk.sh"
        if ! best=$(debian_jdk); then
            echo "error: pillar-csi needs a JDK 21 or newer (Helidon 4). None found in \$JAVA_HOME or /usr/lib/jvm," >&2
            echo "       and Debian 13's could not be fetched (above). Install one (e.g. Temurin 25) and set JAVA_HOME to it." >&2
            exit 1
        fi
    fi
    export JAVA_HOME=$best
    export PATH="$JAVA_HOME/bin:$PATH"
}

# stage NAME COMMAND...: runs a command, printing its name and how long it took.
stage() {
    local name=$1 start rc
    shift
    start=$(date +%s)
    printf '\n=== %s: %s\n' "$(date +%H:%M:%S)" "$name"
    set +e
    "$@"
    rc=$?
    set -e
    printf '=== %s: %s %s in %ss\n' "$(date +%H:%M:%S)" "$name" "$([ $rc -eq 0 ] && echo passed || echo FAILED)" \
        "$(( $(date +%s) - start ))"
    STAGE_TIMES+=("$(printf '%-45s %5ss  %s' "$name" "$(( $(date +%s) - start ))" "$([ $rc -eq 0 ] && echo ok || echo FAILED)")")
    return $rc
}
STAGE_TIMES=()

print_stage_times() {
    printf '\nStage times:\n'
    printf '  %s\n' "${STAGE_TIMES[@]}"
}

# install_hooks [REPO]: points the git checkout REPO (default: the project's) at the project's hooks,
# dev/hooks (the commit-msg check of subjects up to 72 characters), unless it has hooks of its own.
# Outside a git checkout it does nothing.
install_hooks() {
    local repo=${1:-.} hooks
    git -C "$repo" rev-parse --is-inside-work-tree >/dev/null 2>&1 || return 0
    [ -z "$(git -C "$repo" config --get core.hooksPath)" ] || return 0
    hooks=$(cd "$(dirname "${BASH_SOURCE[0]}")/../hooks" && pwd)
    git -C "$repo" config core.hooksPath "$hooks"
    echo "git hooks: core.hooksPath set to $hooks (commit subjects up to 72 characters)"
}
