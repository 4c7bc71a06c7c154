export { TestClient, RpcError, connect, type ConnectOptions, type RequestOptions } from './test-client';
export { rpcErrorOf, memoryLogger, quietOptions } from './helpers';
export { startRoundRobinProxy, type RoundRobinProxy, type RoundRobinProxyOptions, type ForwardedRequest } from './round-robin-proxy';
