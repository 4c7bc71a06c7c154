import { ErrorCode, McpError, UrlElicitationRequiredError } from '../../protocol/errors';
import { ClientCapabilityError } from '../../context/client-requests';
import { InputNeeded } from '../../protocol/input-required';

/** The 2026-07-28 form of an error: resource not found is -32602; a missing client capability is -32021. */
export function toModernError(err: unknown): unknown {
  if (err instanceof ClientCapabilityError) return err.toMcpError();
  if (err instanceof UrlElicitationRequiredError) {
    return new McpError(ErrorCode.MissingRequiredClientCapability, 'This request needs the user to visit a URL, and the client does not support URL elicitation', {
      requiredCapabilities: { elicitation: { url: {} } },
    });
  }
  if (err instanceof McpError && err.code === ErrorCode.ResourceNotFound) return new McpError(ErrorCode.InvalidParams, err.message, err.data);
  if (err instanceof InputNeeded) return new McpError(ErrorCode.InvalidRequest, 'This request cannot wait on the client for input');
  return err;
}
