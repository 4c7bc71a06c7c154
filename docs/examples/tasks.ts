import 'reflect-metadata';
import { Field, Server, Tool, type RequestContext } from '@mcpx/core';
import { IsInt, Max, Min } from 'class-validator';

export class ReportInput {
  @Field({ description: 'Months to cover' })
  @IsInt()
  @Min(1)
  @Max(24)
  months!: number;
}

@Server({ name: 'reports', version: '1.0.0' })
export class ReportServer {
  // 'optional': a plain call works; a call with `task: {}` returns a task id at once.
  @Tool({ description: 'Builds a report', taskSupport: 'optional' })
  async build_report(input: ReportInput, ctx: RequestContext) {
    for (let month = 1; month <= input.months; month++) {
      if (ctx.signal.aborted) throw new Error('cancelled'); // tasks/cancel aborts the signal
      await new Promise((resolve) => setTimeout(resolve, 5));
      ctx.progress(month, input.months, `month ${month}`);
    }
    ctx.log.info('report ready', { task: ctx.task?.id });
    return `Report over ${input.months} months`;
  }

  // 'required': only callable as a task.
  @Tool({ description: 'Re-indexes everything', taskSupport: 'required' })
  async reindex(_input: void) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    return 'reindexed';
  }
}
