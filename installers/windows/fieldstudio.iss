; Inno Setup script: fieldstudio for Windows, installed per user (no administrator rights).
;
; Build (installers/windows/build_windows.ps1 does all of this):
;   1. pyinstaller installers\fieldstudio.spec   with FIELDSTUDIO_VLC_DIR = an unpacked vlc-3.0.x-win64
;      -> dist\fieldstudio\ holding fieldstudio.exe (windowed, no console) and fieldstudio-cli.exe (console)
;   2. iscc /DAppVersion=0.1.0 installers\windows\fieldstudio.iss
;      -> dist\fieldstudio-0.1.0-windows-x64-setup.exe
;
; The installer goes to %LOCALAPPDATA%\Programs\fieldstudio, adds a Start menu entry (and optionally a
; desktop icon), registers the .fieldstudio file type for the current user (HKCU), and offers to start
; fieldstudio at the end. Logs are in %LOCALAPPDATA%\fieldstudio\Logs (Help > Show logs).

#ifndef AppVersion
  #define AppVersion "0.1.0"
#endif
#define AppName "fieldstudio"
#define AppExe "fieldstudio.exe"
#define SourceDir "..\..\dist\fieldstudio"

[Setup]
AppId={{6C1B2D0E-8F4A-4E4B-9E57-0F1E1D5A7C21}
AppName={#AppName}
AppVersion={#AppVersion}
AppVerName={#AppName} {#AppVersion}
AppPublisher=fieldstudio
DefaultDirName={autopf}\{#AppName}
DefaultGroupName={#AppName}
DisableProgramGroupPage=yes
; per-user install: no UAC prompt; {autopf} becomes %LOCALAPPDATA%\Programs
PrivilegesRequired=lowest
PrivilegesRequiredOverridesAllowed=dialog
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
OutputDir=..\..\dist
OutputBaseFilename=fieldstudio-{#AppVersion}-windows-x64-setup
SetupIconFile=fieldstudio.ico
UninstallDisplayIcon={app}\{#AppExe}
Compression=lzma2/max
SolidCompression=yes
WizardStyle=modern
ChangesAssociations=yes

[Languages]
Name: "english"; MessagesFile: "compiler:Default.isl"

[Tasks]
Name: "desktopicon"; Description: "{cm:CreateDesktopIcon}"; GroupDescription: "{cm:AdditionalIcons}"; Flags: unchecked

[Files]
Source: "{#SourceDir}\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[Icons]
Name: "{autoprograms}\{#AppName}"; Filename: "{app}\{#AppExe}"; Comment: "Annotate field-work footage and compare vision-language models"
Name: "{autoprograms}\{#AppName} self-test"; Filename: "{cmd}"; Parameters: "/k ""{app}\fieldstudio-cli.exe"" self-test"; Comment: "Check that fieldstudio works on this computer"
Name: "{autodesktop}\{#AppName}"; Filename: "{app}\{#AppExe}"; Tasks: desktopicon

[Registry]
; .fieldstudio -> fieldstudio.project, opened with the windowed exe (HKA = HKCU for a per-user install)
Root: HKA; Subkey: "Software\Classes\.fieldstudio"; ValueType: string; ValueName: ""; ValueData: "fieldstudio.project"; Flags: uninsdeletevalue
Root: HKA; Subkey: "Software\Classes\.fieldstudio\OpenWithProgids"; ValueType: string; ValueName: "fieldstudio.project"; ValueData: ""; Flags: uninsdeletevalue
Root: HKA; Subkey: "Software\Classes\fieldstudio.project"; ValueType: string; ValueName: ""; ValueData: "fieldstudio project"; Flags: uninsdeletekey
Root: HKA; Subkey: "Software\Classes\fieldstudio.project\DefaultIcon"; ValueType: string; ValueName: ""; ValueData: "{app}\{#AppExe},0"
Root: HKA; Subkey: "Software\Classes\fieldstudio.project\shell\open\command"; ValueType: string; ValueName: ""; ValueData: """{app}\{#AppExe}"" ""%1"""
Root: HKA; Subkey: "Software\Classes\Applications\{#AppExe}\SupportedTypes"; ValueType: string; ValueName: ".fieldstudio"; ValueData: ""

[Run]
Filename: "{app}\{#AppExe}"; Description: "{cm:LaunchProgram,{#AppName}}"; Flags: nowait postinstall skipifsilent
