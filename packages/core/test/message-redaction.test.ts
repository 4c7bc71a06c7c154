import { REDACTED, isSecretName, loggedBody, redactedJson } from '../src/context/message-redaction';

describe('what the debug log redacts', () => {
  it.each([
    'token',
    'accessToken',
    'access_token',
    'refreshToken',
    'password',
    'newPassword',
    'passwd',
    'secret',
    'clientSecret',
    'apiKey',
    'api_key',
    'API-KEY',
    'authorization',
    'Authorization',
    'cookie',
    'Set-Cookie',
    'credentials',
    'privateKey',
    'private_key',
  ])('treats a property named %s as secret', (name) => expect(isSecretName(name)).toBe(true));

  it.each(['progressToken', 'maxTokens', 'name', 'author', 'uri', 'keyword', 'passage', 'cursor', 'text'])('leaves a property named %s alone', (name) => {
    expect(isSecretName(name)).toBe(false);
  });

  it('replaces secret values of any type, at any depth, and bearer tokens and JWTs inside strings', () => {
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZGEifQ.c2lnbmF0dXJl';
    const message = {
      params: {
        arguments: { password: 1234, nested: [{ token: { value: 'deep' } }], note: `curl -H "Authorization: Bearer abc.def-ghi_jkl" ${jwt}` },
        _meta: { progressToken: 7 },
      },
    };
    expect(JSON.parse(redactedJson(message))).toEqual({
      params: {
        arguments: { password: REDACTED, nested: [{ token: REDACTED }], note: `curl -H "Authorization: Bearer ${REDACTED}" ${REDACTED}` },
        _meta: { progressToken: 7 },
      },
    });
    // The message itself is left as it was.
    expect(message.params.arguments.password).toBe(1234);
  });

  it('keeps a short message whole and cuts a long one, saying how long it was', () => {
    expect(loggedBody({ a: 1 }, 100)).toEqual({ body: { a: 1 }, bytes: 7 });
    const long = { text: 'y'.repeat(50) };
    const json = JSON.stringify(long);
    expect(loggedBody(long, 20)).toEqual({ bodyText: `${json.slice(0, 20)}… [truncated: ${json.length} bytes]`, bytes: json.length });
  });

  it('says so instead of throwing when a message does not serialise', () => {
    expect(loggedBody({ n: 10n }, 100)).toEqual({ body: expect.stringMatching(/^\[not serialisable: /), bytes: expect.any(Number) });
  });
});
