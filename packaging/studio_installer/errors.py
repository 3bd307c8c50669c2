"""The installer's one error class."""


class InstallError(Exception):
    """An installation step that cannot go on: the message says what and where, for the user to read as it is.

    It does not derive from ``engines.errors.VoiceStudioError``: the installer runs under a bare Python before
    the project's dependencies exist, and ``import engines`` needs numpy. The installer's command turns it into
    one line on stderr and exit code 2, as ``voice-studio`` does for its errors.
    """
