"""Text to audio: Piper voices, the text frontend and the synthesis engines.

Importing this package is cheap: onnxruntime, torch and sounddevice are imported
only by the modules that need them, when they are used (see ``engines.registry``).
"""

from engines.base import AudioChunk, Engine, EngineError, SynthesisOptions, VoiceError
from engines.errors import VoiceStudioError

__all__ = ["AudioChunk", "Engine", "EngineError", "SynthesisOptions", "VoiceError", "VoiceStudioError"]
__version__ = "0.1.0"
