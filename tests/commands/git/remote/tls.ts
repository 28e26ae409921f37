/** A certificate authority of the test's own and a server certificate for 127.0.0.1 it signed (openssl). */

export interface TestCertificates {
  /** PEM of the CA (what git.ca_file names). */
  readonly ca: string;
  readonly cert: string;
  readonly key: string;
}

async function openssl(dir: string, args: string[]): Promise<void> {
  const out = await new Deno.Command("openssl", { args, cwd: dir, stdout: "null", stderr: "piped" }).output();
  if (!out.success) throw new Error(`openssl ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
}

export async function makeCertificates(): Promise<TestCertificates> {
  const dir = await Deno.makeTempDir({ prefix: "pterm-tls-" });
  try {
    await openssl(dir, [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      "ca.key",
      "-out",
      "ca.pem",
      "-days",
      "2",
      "-subj",
      "/CN=pterm test CA",
      "-addext",
      "basicConstraints=critical,CA:TRUE",
      "-addext",
      "keyUsage=critical,keyCertSign,cRLSign",
    ]);
    await openssl(dir, [
      "req",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      "server.key",
      "-out",
      "server.csr",
      "-subj",
      "/CN=127.0.0.1",
    ]);
    await Deno.writeTextFile(
      `${dir}/ext.cnf`,
      "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n",
    );
    await openssl(dir, [
      "x509",
      "-req",
      "-in",
      "server.csr",
      "-CA",
      "ca.pem",
      "-CAkey",
      "ca.key",
      "-CAcreateserial",
      "-out",
      "server.pem",
      "-days",
      "2",
      "-extfile",
      "ext.cnf",
    ]);
    return {
      ca: await Deno.readTextFile(`${dir}/ca.pem`),
      cert: await Deno.readTextFile(`${dir}/server.pem`),
      key: await Deno.readTextFile(`${dir}/server.key`),
    };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
