# Install Voice Studio on Windows (PowerShell 5.1+) from this clone or release archive, or upgrade it in place
# (run it again), or remove it:
#   powershell -ExecutionPolicy Bypass -File packaging\install.ps1 [--onnx-only] [--cpu] [--prefix DIR] [--uninstall]
# Installs uv when missing (astral's script, else `python -m pip install --user uv`), then runs the installer
# logic, packaging\studio_installer, under a Python uv finds (or fetches). Other arguments go to it as they are.
$ErrorActionPreference = 'Stop'
$here = Split-Path -Parent $MyInvocation.MyCommand.Path

function Find-Uv {
    $command = Get-Command uv -ErrorAction SilentlyContinue
    if ($command) { return $command.Source }
    foreach ($path in "$env:USERPROFILE\.local\bin\uv.exe", "$env:USERPROFILE\.cargo\bin\uv.exe") {
        if (Test-Path $path) { return $path }
    }
    return $null
}

$uv = Find-Uv
if (-not $uv) {
    Write-Host 'Installing uv...'
    try {
        $env:UV_NO_MODIFY_PATH = '1'
        Invoke-RestMethod https://astral.sh/uv/install.ps1 | Invoke-Expression
    } catch { Write-Warning "uv's installer did not work ($_); trying pip" }
    $uv = Find-Uv
    if (-not $uv) {
        python -m pip install --user --quiet uv
        $uv = python -c 'import uv; print(uv.find_uv_bin())'
    }
}
$env:PYTHONPATH = $here
$desktop = [Environment]::GetFolderPath('Desktop')
$programs = [Environment]::GetFolderPath('Programs')
& $uv run --no-project --python '>=3.10' python -m studio_installer --uv $uv `
    --desktop-dir $desktop --start-menu-dir $programs @args
exit $LASTEXITCODE
