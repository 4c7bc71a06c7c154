/** The sealer's keys: sealed with the newest, opened with it or the two it replaced. */
import { RequestStateError, RequestStateSealer, type StatePayload } from '../../src/eras/modern/request-state';

const payload: StatePayload = { request: 'tools/call x', principal: 'p', expiresAt: Date.now() + 60_000, answers: {}, asked: ['k'] };
const expected = { request: payload.request, principal: payload.principal, now: Date.now() };

it('opens states sealed under the keys it rotated away from, up to two of them', () => {
  const sealer = new RequestStateSealer('one');
  const underOne = sealer.seal(payload);
  expect(sealer.rotate('one')).toBe(false);
  expect(sealer.rotate('two')).toBe(true);
  const underTwo = sealer.seal(payload);
  expect(new RequestStateSealer('two').open(underTwo, expected)).toMatchObject({ asked: ['k'] });
  expect(() => new RequestStateSealer('one').open(underTwo, expected)).toThrow(RequestStateError);
  expect(sealer.open(underOne, expected)).toMatchObject({ asked: ['k'] });
  sealer.rotate('three');
  expect(sealer.open(underOne, expected)).toMatchObject({ asked: ['k'] });
  sealer.rotate('four');
  expect(() => sealer.open(underOne, expected)).toThrow(/failed verification/);
  expect(sealer.open(underTwo, expected)).toMatchObject({ asked: ['k'] });
});

it('going back to a key it held makes it the newest again without a duplicate', () => {
  const sealer = new RequestStateSealer('one');
  sealer.rotate('two');
  expect(sealer.rotate('one')).toBe(true);
  expect(new RequestStateSealer('one').open(sealer.seal(payload), expected)).toMatchObject({ request: payload.request });
  sealer.rotate('three');
  // one, three, two... : two is still kept (one was not listed twice).
  const underTwo = new RequestStateSealer('two').seal(payload);
  expect(sealer.open(underTwo, expected)).toMatchObject({ asked: ['k'] });
});
