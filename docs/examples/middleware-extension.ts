import 'reflect-metadata';
import { Server, Tool, type McpExtension } from '@mcpx/core';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { auditLog, type AuditEntry } from './middleware-recipes';

/** The params of com.example/audit/recent: checked before the handler runs (-32602 otherwise). */
export class RecentParams {
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;
}

/** `com.example/audit`: records every tool call, and lets a caller read back its own. */
export function auditExtension(capacity = 500): McpExtension {
  const entries: AuditEntry[] = [];
  return {
    id: 'com.example/audit',
    settings: { capacity }, // capabilities.extensions (2026-07-28) or capabilities.experimental (2025-11-25)
    middleware: [
      auditLog((entry) => {
        entries.push(entry);
        if (entries.length > capacity) entries.shift();
      }),
    ],
    methods: [
      {
        name: 'com.example/audit/recent',
        params: RecentParams,
        requiresClientDeclaration: true, // 2026-07-28: -32021 unless the request declares the extension
        handler: (params, ctx) => {
          const own = entries.filter((entry) => entry.subject === ctx.principal?.subject);
          return { entries: own.slice(-((params.limit as number | undefined) ?? 10)) };
        },
      },
    ],
  };
}

@Server({ name: 'audited', version: '1.0.0', extensions: [auditExtension()] })
export class AuditedServer {
  @Tool({ description: 'Says hello' })
  hello(_input: void) {
    return 'hello';
  }
}
