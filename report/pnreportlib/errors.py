"""InputError: bad input the report cannot trust (the message names the file;
the CLI exits with .code, 2).  Its own module, below every other one, so the
readers (load, series, outfile, indexdb) need not import each other for it."""


class InputError(Exception):
    """Bad input: the message names the file; the CLI exits with .code (2)."""

    def __init__(self, msg, code=2):
        super().__init__(msg)
        self.code = code
