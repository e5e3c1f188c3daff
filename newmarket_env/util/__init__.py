"""Plumbing every layer may use, standard library only: the commands' shared parser and exit codes
(``cli_common``) and the modes of files written atomically (``file_modes``)."""
