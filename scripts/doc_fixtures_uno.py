"""Saves an office document with a password through LibreOffice's UNO API.

LibreOffice's --convert-to has no password option for OOXML, so scripts/doc_fixtures.ts runs
this with Debian's /usr/bin/python3 (python3-uno) to make the password-protected fixture:
an OLE compound file holding an EncryptedPackage stream, as Office itself writes it.

usage: /usr/bin/python3 scripts/doc_fixtures_uno.py SOURCE TARGET FILTER PASSWORD
"""

import os
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
    pipe = f"pterm_fixtures_{os.getpid()}"
    profile = tempfile.mkdtemp(prefix="pterm-lo-profile-")
    office = subprocess.Popen([
        "soffice", "--headless", "--invisible", "--nologo", "--norestore",
        f"-env:UserInstallation=file://{profile}",
        f"--accept=pipe,name={pipe};urp;StarOffice.ComponentContext",
    ])
    try:
        local = uno.getComponentContext()
        resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
        context = None
        for _ in range(100):
            try:
                context = resolver.resolve(f"uno:pipe,name={pipe};urp;StarOffice.ComponentContext")
                break
            except Exception:
                time.sleep(0.2)
        if context is None:
            raise SystemExit("LibreOffice did not start")
        desktop = context.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", context)
        doc = desktop.loadComponentFromURL(uno.systemPathToFileUrl(os.path.abspath(source)), "_blank", 0,
                                           (prop("Hidden", True),))
        # The OOXML export encrypts when the media descriptor carries EncryptionData with an
        # "OOXPassword" entry (what LibreOffice's own save dialog passes); a plain Password is ignored.
        encryption = NamedValue()
        encryption.Name = "OOXPassword"
        encryption.Value = password
        encryption_data = uno.Any("[]com.sun.star.beans.NamedValue", (encryption,))
        args = (prop("FilterName", filter_name), prop("EncryptionData", encryption_data))
        uno.invoke(doc, "storeToURL", (uno.systemPathToFileUrl(os.path.abspath(target)), args))
        doc.close(True)
        try:
            desktop.terminate()
        except Exception:
            pass  # the bridge drops while LibreOffice exits
    finally:
        try:
            office.wait(timeout=30)
        except subprocess.TimeoutExpired:
            office.kill()


if __name__ == "__main__":
    main()
