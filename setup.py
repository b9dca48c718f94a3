"""Build step of the package: compile the translation catalogs (.po -> .mo) with Babel.

Everything else about the package is in pyproject.toml. The bot loads compiled catalogs with the
standard library's gettext (tgbot/i18n.py); the .mo files are build output, never committed.

* A wheel (`pip install .`, `pip wheel .`, the Docker image) gets them in its build directory,
  next to where the .po files would be: tgbot/locales/<lang>/LC_MESSAGES/messages.mo.
* An editable install (`pip install -e .`, PEP 660) imports the package from the source tree, so
  the catalogs are compiled in place, next to their .po files, as setuptools asks of build
  sub-commands in editable mode. After editing a .po file, compile again: `make test` and
  `make run` do it (`make catalogs`: `pybabel compile` for each .po newer than its .mo), and
  tests/test_catalogs.py fails while a .mo file is missing or older than its .po.

Like `pybabel compile`, fuzzy entries are left out (they stay English at run time) and the
catalogs are checked. Unlike it, a check error writes nothing and a catalog marked fuzzy as a whole
(which pybabel skips) stops the build too, instead of shipping a language that is silently English.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import ClassVar

from setuptools import Command, setup
from setuptools.command.build import build
from setuptools.errors import SetupError

LOCALES = Path("tgbot", "locales")
DOMAIN = "messages"
log = logging.getLogger("build_catalogs")


class build_catalogs(Command):  # setuptools names its commands in lower case
    description = f"compile {LOCALES}/<lang>/LC_MESSAGES/{DOMAIN}.po to .mo files (Babel)"
    user_options: ClassVar[list[tuple[str, str | None, str]]] = []

    def initialize_options(self) -> None:
        self.build_lib: str | None = None
        self.editable_mode = False

    def finalize_options(self) -> None:
        self.set_undefined_options("build_py", ("build_lib", "build_lib"))

    def _catalogs(self) -> list[Path]:
        return sorted(LOCALES.glob(f"*/LC_MESSAGES/{DOMAIN}.po"))

    def _built(self, po: Path) -> Path:
        assert self.build_lib is not None
        return Path(self.build_lib, po.with_suffix(".mo"))

    def _target(self, po: Path) -> Path:
        """In place for an editable install, else in the build directory."""
        return po.with_suffix(".mo") if self.editable_mode else self._built(po)

    def run(self) -> None:
        from babel.messages.mofile import write_mo
        from babel.messages.pofile import read_po

        catalogs = self._catalogs()
        if not catalogs:
            raise SetupError(f"no {DOMAIN}.po catalogs under {LOCALES}")
        for po in catalogs:
            lang = po.parent.parent.name
            with po.open("rb") as fh:
                catalog = read_po(fh, locale=lang)
            if catalog.fuzzy:
                raise SetupError(f"{po}: the catalog is marked fuzzy (remove '#, fuzzy' from its header)")
            errors = [
                f"{po}:{message.lineno}: {error}" for message, errs in catalog.check() for error in errs
            ]
            if errors:
                raise SetupError("errors in the translation catalogs:\n" + "\n".join(errors))
            target = self._target(po)
            target.parent.mkdir(parents=True, exist_ok=True)
            with target.open("wb") as fh:
                write_mo(fh, catalog, use_fuzzy=False)
            log.info("compiled %s -> %s", po, target)

    # The SubCommand protocol (setuptools.command.build): what the build makes, from what.
    def get_source_files(self) -> list[str]:
        return [str(po) for po in self._catalogs()]  # so an sdist carries them

    def get_outputs(self) -> list[str]:
        return [str(self._built(po)) for po in self._catalogs()]

    def get_output_mapping(self) -> dict[str, str]:
        if not self.editable_mode:
            return {}  # generated, no source file to map to
        return {str(self._built(po)): str(po.with_suffix(".mo")) for po in self._catalogs()}


class build_with_catalogs(build):
    sub_commands: ClassVar = [*build.sub_commands, ("build_catalogs", None)]


setup(cmdclass={"build": build_with_catalogs, "build_catalogs": build_catalogs})
