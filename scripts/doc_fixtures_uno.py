"""Saves an office document with a password through LibreOffice's UNO API.

LibreOffice's --convert-to has no password option for OOXML, so scripts/doc_fixtures.ts runs
this with Debian's /usr/bin/python3 (package python3-uno) to make the password-protected
fixture: an OLE compound file holding an EncryptedPackage stream, as Office itself writes it.

usage: /usr/bin/python3 scripts/doc_fixtures_uno.py SOURCE TARGET FILTER PASSWORD
"""

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import uno
from com.sun.star.beans import NamedValue, PropertyValue


def prop(name, value):
    p = PropertyValue()
    p.Name = name
    p.Value = value
    return p


def main():
    source, target, filter_name, password = sys.argv[1:5]
    work = tempfile.mkdtemp(prefix="pterm-lo-")
    # LibreOffice leaves lock files beside what it opens; work on a copy so the sources stay clean.
    copy = os.path.join(work, os.path.basename(source))
    shutil.copyfile(source, copy)
    pipe = f"pterm_fixtures_{os.getpid()}"
    office = subprocess.Popen(
        [
            "soffice", "--headless", "--invisible", "--nologo", "--norestore",
            f"-env:UserInstallation=file://{work}/profile",
            f"--accept=pipe,name={pipe};urp;StarOffice.ComponentContext",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # soffice is a wrapper script: end its whole process group
    )
    try:
        local = uno.getComponentContext()
        resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
        context = None
        for _ in range(150):
            try:
                context = resolver.resolve(f"uno:pipe,name={pipe};urp;StarOffice.ComponentContext")
                break
            except Exception:
                time.sleep(0.2)
        if context is None:
            raise SystemExit("LibreOffice did not start")
        desktop = context.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", context)
        doc = desktop.loadComponentFromURL(uno.systemPathToFileUrl(copy), "_blank", 0, (prop("Hidden", True),))
        if doc is None:
            raise SystemExit(f"LibreOffice could not open {source}")
        # The OOXML export encrypts when the media descriptor carries EncryptionData with an
        # "OOXPassword" and a "CryptoType" entry (what LibreOffice's own save dialog passes);
        # a plain Password property is ignored by that filter.
        entries = []
        for name, value in (("OOXPassword", password), ("CryptoType", "Standard")):
            entry = NamedValue()
            entry.Name = name
            entry.Value = value
            entries.append(entry)
        encryption_data = uno.Any("[]com.sun.star.beans.NamedValue", tuple(entries))
        args = (prop("FilterName", filter_name), prop("EncryptionData", encryption_data))
        uno.invoke(doc, "storeToURL", (uno.systemPathToFileUrl(os.path.abspath(target)), args))
        doc.close(True)
    finally:
        try:
            os.killpg(office.pid, signal.SIGTERM)
            office.wait(timeout=10)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            os.killpg(office.pid, signal.SIGKILL)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
