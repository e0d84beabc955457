"""kura.d.ts: it declares exactly what kura.js exports, and a sample app type-checks against it (tsc --strict)."""

import json
import os
import re
import subprocess

from harness import HERE, SDK, test


@test("kura.d.ts declares every export of kura.js and type-checks a sample app", start=False)
def declarations(t):
    page = t.page()
    exported = sorted(page.step("types", "exportNames"))
    with open(os.path.join(SDK, "kura.d.ts")) as f:
        declared = sorted(set(re.findall(r"^export declare (?:function|class|const) (\w+)", f.read(), re.M)))
    t.equal("kura.d.ts declares exactly the runtime exports", declared, exported)
    result = subprocess.run(
        ["tsc", "--noEmit", "--strict", "--target", "es2022", "--module", "es2022", "--moduleResolution", "node",
         "--lib", "es2022,dom", os.path.join(HERE, "types", "usage.ts"), os.path.join(HERE, "types", "firebase.ts")],
        capture_output=True, text=True)
    t.check("types/usage.ts and types/firebase.ts type-check against kura.d.ts", result.returncode == 0,
            (result.stdout + result.stderr)[-2000:] or json.dumps(result.returncode))
