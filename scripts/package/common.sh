# Shared by scripts/package-linux and scripts/package-macos (sourced, not run): finding the JDK,
# the version, building the jar, and linking the runtime. Each function says exactly what is
# missing and stops the script; the caller has set `say` and `missing`.

# The JDK whose jlink/jpackage/jdeps build the packages: JAVA_HOME, else the javac on the PATH.
find_jdk() {
  jdk="${JAVA_HOME:-}"
  if [ -z "$jdk" ] && command -v javac >/dev/null 2>&1; then
    jdk="$(dirname "$(dirname "$(readlink -f "$(command -v javac)" 2>/dev/null || command -v javac)")")"
  fi
  if [ -z "$jdk" ] || [ ! -x "$jdk/bin/javac" ]; then
    missing+=("a JDK 17 or newer (set JAVA_HOME, or put its javac on the PATH; $1)")
    return
  fi
  local version
  version=$("$jdk/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
  if [ "${version%%.*}" -lt 17 ] 2>/dev/null; then
    missing+=("a JDK 17 or newer: the one at $jdk is version $version")
  fi
  local tool
  for tool in jlink jpackage jdeps jar; do
    [ -x "$jdk/bin/$tool" ] || missing+=("$tool, which the JDK at $jdk lacks (a full JDK has it)")
  done
  [ -f "$jdk/jmods/java.base.jmod" ] || missing+=("the JDK's jmods, which jlink links the runtime from ($jdk/jmods; $2)")
}

need() { command -v "$1" >/dev/null 2>&1 || missing+=("$1 ($2)"); }

stop_if_missing() {
  if [ ${#missing[@]} -gt 0 ]; then
    say "cannot build the packages; missing:"
    printf '  - %s\n' "${missing[@]}" >&2
    exit 1
  fi
}

# The project's version (0.1.0-SNAPSHOT) and the numbers-only form jpackage takes (0.1.0).
read_version() {
  version=$(sed -n 's:^  <version>\(.*\)</version>.*:\1:p' pom.xml | head -1)
  app_version=${version%%-*}
}

# The jar for this platform (pom.xml's profiles choose by the building OS), into $work/input.
build_jar() {
  say "building the jar (mvn package)…"
  if ! mvn -B -q -DskipTests package >target-build.log 2>&1; then
    say "the build failed; see $PWD/target-build.log"
    exit 1
  fi
  rm -f target-build.log
  rm -rf "$work" "$out"
  mkdir -p "$work/input" "$out"
  cp target/racelab.jar "$work/input/"
}

# The runtime: the modules in jlink.args, checked first against what jdeps finds in the jar.
link_runtime() {
  say "checking the runtime's modules against jdeps…"
  local needed listed module unlisted=()
  needed=$("$jdk/bin/jdeps" --print-module-deps --ignore-missing-deps --multi-release 17 -q target/racelab.jar)
  listed=$(sed -n 's/^--add-modules *//p' scripts/package/jlink.args)
  for module in ${needed//,/ }; do
    [[ ",$listed," == *",$module,"* ]] || unlisted+=("$module")
  done
  if [ ${#unlisted[@]} -gt 0 ]; then
    say "the jar needs modules that scripts/package/jlink.args leaves out: ${unlisted[*]};" \
        "add them to its --add-modules line (jdeps finds: $needed)"
    exit 1
  fi
  say "linking the runtime…"
  "$jdk/bin/jlink" @scripts/package/jlink.args --output "$work/runtime" >/dev/null
}
