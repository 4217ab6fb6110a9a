"""PyInstaller runtime hook: point python-vlc at the libVLC and plugins inside the bundle.

Runs before any application code, so before ``import vlc`` (whose ``find_lib`` reads these variables
at import time). pitfalls.md section 11: set PYTHON_VLC_LIB_PATH and PYTHON_VLC_MODULE_PATH, set
VLC_PLUGIN_PATH (libVLC 3 reads it; a VLC installed on the machine must not lend its own plugins), and on
Windows add the bundle to the DLL search path. When the bundle has no libVLC, nothing is set and
fieldstudio falls back to decoder playback with a message.
"""

import os
import sys

_base = getattr(sys, "_MEIPASS", os.path.dirname(sys.executable))
if sys.platform == "win32":
    _lib = os.path.join(_base, "libvlc.dll")
elif sys.platform == "darwin":
    _lib = os.path.join(_base, "libvlc.dylib")
else:
    _lib = os.path.join(_base, "libvlc.so.5")
_plugins = os.path.join(_base, "vlc", "plugins")

if os.path.isfile(_lib):
    os.environ["PYTHON_VLC_LIB_PATH"] = _lib
    if sys.platform == "win32":
        os.add_dll_directory(_base)
if os.path.isdir(_plugins):
    os.environ["PYTHON_VLC_MODULE_PATH"] = _plugins
    os.environ["VLC_PLUGIN_PATH"] = _plugins
