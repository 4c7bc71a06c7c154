import type { Principal } from '@mcpx/core';
import { ownerOf, sameOwner } from '../../src/auth/guard';

const principal = (subject: string, claims: Record<string, unknown> = {}, clientId?: string): Principal => ({ subject, clientId, scopes: [], claims });

// A session answers only its owner; the check runs on every request, so it compares the identities
// rather than writing both keys, and must agree with the key a shared session's record holds.
describe('sameOwner', () => {
  const cases: [string, Principal | undefined, Principal | undefined][] = [
    ['no auth on either side', undefined, undefined],
    ['a principal against none', principal('ada'), undefined],
    ['none against a principal', undefined, principal('ada')],
    ['one subject, no issuer', principal('ada'), principal('ada')],
    ['two subjects', principal('ada'), principal('mallory')],
    ['one subject, one issuer', principal('ada', { iss: 'https://a' }), principal('ada', { iss: 'https://a' })],
    ['one subject, two issuers', principal('ada', { iss: 'https://a' }), principal('ada', { iss: 'https://b' })],
    ['an issuer against none', principal('ada', { iss: 'https://a' }), principal('ada')],
    ['one client', principal('ada', {}, 'app'), principal('ada', {}, 'app')],
    ['two clients', principal('ada', {}, 'app'), principal('ada', {}, 'other')],
    ['a client against none', principal('ada', {}, 'app'), principal('ada')],
    ['equal issuers that are not strings', principal('ada', { iss: { realm: 'x' } }), principal('ada', { iss: { realm: 'x' } })],
    ['unequal issuers that are not strings', principal('ada', { iss: { realm: 'x' } }), principal('ada', { iss: { realm: 'y' } })],
    ['a number and its string', principal('ada', { iss: 1 }), principal('ada', { iss: '1' })],
    ['an issuer of null against none', principal('ada', { iss: null }), principal('ada')],
  ];
  it.each(cases)('agrees with ownerOf: %s', (_name, a, b) => {
    expect(sameOwner(a, b)).toBe(ownerOf(a) === ownerOf(b));
  });

  it('tells owners apart in both directions', () => {
    expect(sameOwner(principal('ada', { iss: 'https://a' }), principal('ada', { iss: 'https://a' }))).toBe(true);
    expect(sameOwner(principal('ada'), principal('mallory'))).toBe(false);
  });
});
