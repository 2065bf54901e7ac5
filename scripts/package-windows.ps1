# Builds RaceLab's Windows installer from this checkout, on Windows (x64):
#   target\packages\RaceLab-VERSION.msi   installs RaceLab under Program Files, in the Start menu
#                                         and on the desktop; RaceLab.exe opens the window,
#                                         racelab-cli.exe is the command line in a console
# The installer carries a trimmed Java runtime (scripts\package\jlink.args) and the jar built for
# Windows (JavaFX, PostgreSQL and Redis for Windows only: pom.xml's windows profile).
# Run from PowerShell:  powershell -ExecutionPolicy Bypass -File scripts\package-windows.ps1
# Runs on Windows only; it has not been run by RaceLab's CI, which is Linux.
$ErrorActionPreference = 'Stop'
Set-StrictMode -Version Latest
$root = Split-Path -Parent $PSScriptRoot
Set-Location $root
function Say([string] $message) { [Console]::Error.WriteLine("package-windows: $message") }

if ($env:OS -ne 'Windows_NT') {
    Say "builds the Windows .msi and runs on Windows only; on Linux use scripts/package-linux, on macOS scripts/package-macos"
    exit 1
}

# --- What it needs, all checked before anything is built, each missing piece named.
$missing = @()
$jdk = $env:JAVA_HOME
if (-not $jdk) {
    $javac = Get-Command javac.exe -ErrorAction SilentlyContinue
    if ($javac) { $jdk = Split-Path -Parent (Split-Path -Parent $javac.Source) }
}
if (-not $jdk -or -not (Test-Path "$jdk\bin\javac.exe")) {
    $missing += "a JDK 17 or newer (set JAVA_HOME, or put its javac on the PATH; for example winget install EclipseAdoptium.Temurin.17.JDK)"
} else {
    $spec = (& "$jdk\bin\java.exe" -XshowSettings:properties -version 2>&1 | Out-String) -split "`n" |
        Where-Object { $_ -match 'java.specification.version = (\d+)' } | ForEach-Object { [int]$Matches[1] }
    if ($spec -lt 17) { $missing += "a JDK 17 or newer: the one at $jdk is version $spec" }
    foreach ($tool in 'jlink', 'jpackage', 'jdeps') {
        if (-not (Test-Path "$jdk\bin\$tool.exe")) { $missing += "$tool.exe, which the JDK at $jdk lacks (a full JDK has it)" }
    }
    if (-not (Test-Path "$jdk\jmods\java.base.jmod")) { $missing += "the JDK's jmods, which jlink links the runtime from ($jdk\jmods)" }
}
if (-not (Get-Command mvn -ErrorAction SilentlyContinue)) { $missing += "mvn (Maven, to build the jar; for example winget install Apache.Maven)" }
foreach ($wix in 'candle.exe', 'light.exe') {
    if (-not (Get-Command $wix -ErrorAction SilentlyContinue)) {
        $missing += "$wix (the WiX Toolset 3, which jpackage makes the .msi with; wixtoolset.org, and its bin folder on the PATH)"
    }
}
if ($missing.Count -gt 0) {
    Say "cannot build the Windows installer; missing:"
    $missing | ForEach-Object { [Console]::Error.WriteLine("  - $_") }
    exit 1
}

$version = ([xml](Get-Content pom.xml)).project.version
$appVersion = ($version -split '-')[0]
$work = 'target\package-work'
$out = 'target\packages'

# --- The jar, built for Windows (pom.xml's windows profile is chosen by the OS).
Say "building the jar (mvn package)..."
& mvn -B -q -DskipTests package
if ($LASTEXITCODE -ne 0) { Say "the build failed"; exit 1 }
Remove-Item -Recurse -Force $work, $out -ErrorAction SilentlyContinue
New-Item -ItemType Directory -Force "$work\input", $out | Out-Null
Copy-Item target\racelab.jar "$work\input\"

# --- The runtime: the modules in jlink.args, checked against what jdeps finds in the jar.
Say "checking the runtime's modules against jdeps..."
$needed = (& "$jdk\bin\jdeps.exe" --print-module-deps --ignore-missing-deps --multi-release 17 -q target\racelab.jar).Trim()
$listed = (Select-String -Path scripts\package\jlink.args -Pattern '^--add-modules\s+(.*)$').Matches[0].Groups[1].Value.Trim()
$unlisted = $needed -split ',' | Where-Object { ($listed -split ',') -notcontains $_ }
if ($unlisted) {
    Say "the jar needs modules that scripts\package\jlink.args leaves out: $($unlisted -join ', '); add them to its --add-modules line (jdeps finds: $needed)"
    exit 1
}
Say "linking the runtime..."
& "$jdk\bin\jlink.exe" '@scripts/package/jlink.args' --output "$work\runtime"
if ($LASTEXITCODE -ne 0) { Say "jlink failed"; exit 1 }

# --- The installer.
Say "making the .msi (jpackage)..."
& "$jdk\bin\jpackage.exe" '@scripts/package/jpackage.args' '@scripts/package/jpackage-windows.args' `
    --app-version $appVersion --runtime-image "$work\runtime" --input "$work\input" --dest $out
if ($LASTEXITCODE -ne 0) { Say "jpackage failed"; exit 1 }
$msi = "$out\RaceLab-$version.msi"
Move-Item -Force "$out\RaceLab-$appVersion.msi" $msi
Say ("done: $msi ({0:N0} MB)" -f ((Get-Item $msi).Length / 1MB))
