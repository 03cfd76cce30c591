import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCa {
  /** The throw-away CA's certificate: what a client given it (GW_EXTRA_CA_FILE) trusts. */
  caPem: string;
  /** The server's certificate, signed by the CA. */
  certPem: string;
  /** The server certificate's private key. */
  keyPem: string;
}

export interface TestCaNames {
  dnsNames?: readonly string[];
  ipAddresses?: readonly string[];
}

const DEFAULT_DNS_NAMES = ['localhost', 'service.test'];
const DEFAULT_IP_ADDRESSES = ['127.0.0.1'];

/**
 * A fresh CA and a server certificate it signed, made with the openssl CLI in a temporary
 * directory that is removed before returning. P-256 keys keep it to a few tens of milliseconds.
 * By default the certificate names localhost, service.test and 127.0.0.1; `service.test`
 * resolves nowhere, so a call that reaches it proves the address was pinned.
 */
export function createTestCa(names: TestCaNames = {}): TestCa {
  const dnsNames = names.dnsNames ?? DEFAULT_DNS_NAMES;
  const ipAddresses = names.ipAddresses ?? DEFAULT_IP_ADDRESSES;
  const dir = mkdtempSync(join(tmpdir(), 'gw-test-ca-'));
  const file = (name: string): string => join(dir, name);
  const openssl = (...args: string[]): void => {
    execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  };
  const newKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  try {
    openssl(
      'req',
      '-x509',
      ...newKey,
      '-keyout',
      file('ca.key'),
      '-out',
      file('ca.pem'),
      '-days',
      '2',
      '-subj',
      '/CN=gw throw-away test CA',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    );
    openssl('req', ...newKey, '-keyout', file('server.key'), '-out', file('server.csr'), '-subj', `/CN=${dnsNames[0] ?? 'localhost'}`);
    const altNames = [...dnsNames.map((name) => `DNS:${name}`), ...ipAddresses.map((address) => `IP:${address}`)].join(',');
    writeFileSync(file('server.ext'), ['basicConstraints=critical,CA:FALSE', 'keyUsage=critical,digitalSignature', 'extendedKeyUsage=serverAuth', `subjectAltName=${altNames}`].join('\n'));
    openssl(
      'x509',
      '-req',
      '-in',
      file('server.csr'),
      '-CA',
      file('ca.pem'),
      '-CAkey',
      file('ca.key'),
      '-set_serial',
      `0x${randomBytes(8).toString('hex')}`,
      '-days',
      '2',
      '-extfile',
      file('server.ext'),
      '-out',
      file('server.pem'),
    );
    return { caPem: readFileSync(file('ca.pem'), 'utf8'), certPem: readFileSync(file('server.pem'), 'utf8'), keyPem: readFileSync(file('server.key'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
