export { TestClient, RpcError, connect, type ConnectOptions, type RequestOptions } from './test-client';
