# scripts/jdk.sh — finding a JDK of a given major version or later, for the
# scripts that run Java servers (scripts/opensearch.sh for OpenSearch 3.x,
# scripts/elasticsearch.sh). Sourced, not run. The caller defines die MESSAGE.
#
# Debian 12 packages Java 17 only; OpenSearch 3 and Elasticsearch 9 need 21 or
# later. The project's machines carry Temurin 25 in
# /usr/lib/jvm/temurin-25-jdk-amd64 (no registry the machines reach serves a
# newer JDK), which is what is looked for first.

# java_major JAVA — the major version of the java binary JAVA (17, 21, 25).
java_major() {
    local spec
    spec=$("$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = //p')
    spec=${spec#1.}
    echo "${spec%%.*}"
}

# find_jdk MIN — print the JAVA_HOME of a JDK (java and javac) of major
# version MIN or later: $FAIRBENCH_JAVA_HOME when set (it must qualify), else
# Temurin 25, else the newest qualifying one under /usr/lib/jvm.
find_jdk() {
    local min=$1 home major best='' best_major=0
    if [ -n "${FAIRBENCH_JAVA_HOME:-}" ]; then
        [ -x "$FAIRBENCH_JAVA_HOME/bin/java" ] && [ -x "$FAIRBENCH_JAVA_HOME/bin/javac" ] \
            || die "FAIRBENCH_JAVA_HOME=$FAIRBENCH_JAVA_HOME holds no bin/java and bin/javac (a JDK)"
        major=$(java_major "$FAIRBENCH_JAVA_HOME/bin/java")
        [[ $major =~ ^[0-9]+$ ]] && [ "$major" -ge "$min" ] \
            || die "FAIRBENCH_JAVA_HOME=$FAIRBENCH_JAVA_HOME is Java '${major:-?}'; Java $min or later is needed"
        echo "$FAIRBENCH_JAVA_HOME"
        return 0
    fi
    for home in /usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/*; do
        [ -x "$home/bin/java" ] && [ -x "$home/bin/javac" ] && [ ! -L "$home" ] || continue
        major=$(java_major "$home/bin/java")
        [[ $major =~ ^[0-9]+$ ]] && [ "$major" -ge "$min" ] || continue
        if [ "$home" = /usr/lib/jvm/temurin-25-jdk-amd64 ]; then
            echo "$home"
            return 0
        fi
        [ "$major" -gt "$best_major" ] && best=$home best_major=$major
    done
    [ -n "$best" ] || die "no JDK of Java $min or later under /usr/lib/jvm (Debian 12 packages only 17): install Temurin 25 into /usr/lib/jvm/temurin-25-jdk-amd64, or set FAIRBENCH_JAVA_HOME to a JDK $min+"
    echo "$best"
}
