# Install Voice Studio on Windows (PowerShell 5.1+) from this clone or release archive, or upgrade it in place
# (run it again), or remove it:
#   powershell -ExecutionPolicy Bypass -File packaging\install.ps1 [--onnx-only] [--cpu] [--prefix DIR] [--uninstall] [--help]
# Installs uv when missing: astral's script, else PyPI's uv package in a venv of its own in
# %LOCALAPPDATA%\voice-studio-installer\uv (kept after an uninstall, like uv itself). Then it runs the installer
# logic, packaging\studio_installer, under a Python uv finds (or fetches); other arguments go to it as they are.
# --help shows this and the options, and does nothing else.
# Keep this file ASCII: PowerShell 5.1 reads a script without a byte-order mark in the ANSI code page.
$ErrorActionPreference = 'Stop'
$here = Split-Path -Parent $MyInvocation.MyCommand.Path
$bootstrap = Join-Path $env:LOCALAPPDATA 'voice-studio-installer\uv'
$env:PYTHONPATH = if ($env:PYTHONPATH) { "$here;$env:PYTHONPATH" } else { $here }

function Find-Uv {
    $command = Get-Command uv -ErrorAction SilentlyContinue
    if ($command) { return $command.Source }
    $candidates = "$env:USERPROFILE\.local\bin\uv.exe", "$env:USERPROFILE\.cargo\bin\uv.exe", "$bootstrap\Scripts\uv.exe"
    foreach ($path in $candidates) {
        if (Test-Path $path) { return $path }
    }
    return $null
}

function Install-UvFromPyPI {
    # uv in a venv of its own, from the Python launcher (py) or python on the PATH
    $python = Get-Command py, python -CommandType Application -ErrorAction SilentlyContinue | Select-Object -First 1
    if (-not $python) { return }
    if (Test-Path $bootstrap) { Remove-Item -Recurse -Force $bootstrap }
    & $python.Source -m venv $bootstrap
    if ($LASTEXITCODE -ne 0) { return }
    & "$bootstrap\Scripts\python.exe" -m pip install --quiet --disable-pip-version-check uv
    if ($LASTEXITCODE -ne 0) { Write-Warning "pip could not install uv (exit status $LASTEXITCODE)" }
}

function Install-Uv {
    Write-Host 'Installing uv...'
    try {
        $env:UV_NO_MODIFY_PATH = '1'
        Invoke-RestMethod https://astral.sh/uv/install.ps1 | Invoke-Expression | Out-Host
    } catch { Write-Warning "uv's installer did not work ($_); installing uv from PyPI into $bootstrap" }
    $uv = Find-Uv
    if ($uv) { return $uv }
    Install-UvFromPyPI | Out-Host
    return Find-Uv
}

function Show-Help {
    Get-Content $PSCommandPath -TotalCount 7 | ForEach-Object { $_ -replace '^# ?', '' }
    Write-Host ''
    $uv = Find-Uv
    if ($uv) {
        & $uv run --no-project --no-python-downloads --python '>=3.10' python -m studio_installer --help
    } else {
        Write-Host "(the installer's options are listed in docs/install.md)"
    }
}

if ($args | Where-Object { $_ -in '-h', '--help', '/?' }) {
    Show-Help
    exit 0
}
$uv = Find-Uv
if (-not $uv) { $uv = Install-Uv }
if (-not $uv) {
    [Console]::Error.WriteLine('install: error: could not install uv: install it ' +
        '(https://docs.astral.sh/uv/getting-started/installation/, or `winget install astral-sh.uv`), then run this again')
    exit 2
}
$desktop = [Environment]::GetFolderPath('Desktop')
$programs = [Environment]::GetFolderPath('Programs')
& $uv run --no-project --python '>=3.10' python -m studio_installer --uv $uv `
    --desktop-dir $desktop --start-menu-dir $programs @args
exit $LASTEXITCODE
