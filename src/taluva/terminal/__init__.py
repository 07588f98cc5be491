"""Playing in the terminal: ``taluva play`` (full screen with Textual, or ``--plain`` line by
line), ``taluva replay`` and ``taluva show``. Only the full-screen app needs Textual."""
