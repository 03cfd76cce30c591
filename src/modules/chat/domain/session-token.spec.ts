import { SessionTokenSigner } from './session-token';

describe('SessionTokenSigner', () => {
  const signer = new SessionTokenSigner(Buffer.from('0123456789abcdef0123456789abcdef'));
  const claims = { sid: 'session-1', wallet: '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM', iat: 1_763_856_000 };

  it('verifies what it signed', () => {
    const token = signer.sign(claims);
    expect(token).toMatch(/^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(signer.verify(token)).toEqual(claims);
  });

  it('refuses tampered claims, a foreign key and garbage', () => {
    const token = signer.sign(claims);
    const [v, body, mac] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ ...claims, wallet: 'attacker' })).toString('base64url');
    expect(signer.verify(`${v}.${forged}.${mac}`)).toBeNull();
    expect(new SessionTokenSigner(Buffer.from('another key of thirty-two bytes!')).verify(token)).toBeNull();
    for (const bad of ['', 'v1', 'v2.x.y', `${v}.${body}`, `${v}.${body}.${mac}x`, 'v1.!!.!!']) expect(signer.verify(bad)).toBeNull();
  });
});
