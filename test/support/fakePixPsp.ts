/**
 * A small stand-in for a PSP's API Pix v2, for the client's unit tests: an https server on
 * 127.0.0.1 that demands a client certificate from the test CA (mutual TLS), an OAuth2
 * client-credentials token endpoint, and the cob / pix / devolução / webhook routes the gateway
 * uses, with just enough state to answer them as the standard says. It records every request,
 * and `respond` lets a test answer the next requests its own way (faults, odd answers).
 * Not the sandbox: that is the system's own PSP; this is the outside world, for unit tests only.
 */
import crypto from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import fs from 'node:fs';
import type { PkiFiles } from './testCertificates';

export interface FakeRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** Subject CN of the client certificate, when the connection was TLS. */
  clientCn: string | null;
}

export interface FakeAnswer {
  status: number;
  body?: unknown;
  /** Sent as is (not JSON-encoded) when given. */
  raw?: string;
  headers?: Record<string, string>;
  /** Drop the connection without answering. */
  destroy?: boolean;
  /** Answer this late (a slow PSP). */
  delayMs?: number;
}

export interface FakePixPspOptions {
  /** Null: plain http (no TLS at all). */
  certificates: PkiFiles | null;
  clientId: string;
  clientSecret: string;
  expiresInSeconds?: number;
  /** The most Pix the fake puts on one page of GET /pix, whatever is asked. */
  maxPageSize?: number;
}

type Route = (req: FakeRequest, params: string[]) => FakeAnswer;

const PROBLEM = 'https://pix.bcb.gov.br/api/v2/error/';

export class FakePixPsp {
  readonly requests: FakeRequest[] = [];
  readonly tokensIssued: string[] = [];
  /** Tokens the API no longer accepts (as if the PSP revoked them). */
  readonly revoked = new Set<string>();
  readonly cobs = new Map<string, Record<string, any>>();
  readonly pix: Record<string, any>[] = [];
  readonly webhooks = new Map<string, Record<string, any>>();
  /** Answers the matching request instead of the routes; return undefined to let it through. */
  respond: ((req: FakeRequest) => FakeAnswer | undefined) | null = null;
  /** Called with every request under /api/v2 (the request validator plugs in here). */
  onApiRequest: ((req: FakeRequest) => void) | null = null;
  private server!: http.Server;
  private readonly devolucoes = new Map<string, Record<string, any>>();

  constructor(private readonly opts: FakePixPspOptions) {}

  get origin(): string {
    const { port } = this.server.address() as AddressInfo;
    return `${this.opts.certificates ? 'https' : 'http'}://127.0.0.1:${port}`;
  }

  get baseUrl(): string {
    return `${this.origin}/api/v2`;
  }

  get tokenUrl(): string {
    return `${this.origin}/oauth/token`;
  }

  apiRequests(): FakeRequest[] {
    return this.requests.filter((r) => r.url.startsWith('/api/v2/'));
  }

  tokenRequests(): FakeRequest[] {
    return this.requests.filter((r) => r.url === '/oauth/token');
  }

  /**
   * "METHOD url" of every request (API only, or all): what assertions compare, since a failing
   * assertion prints what it compared, and the requests themselves carry tokens and secrets.
   */
  calls(which: 'api' | 'all' = 'api'): string[] {
    return (which === 'api' ? this.apiRequests() : this.requests).map((r) => `${r.method} ${r.url}`);
  }

  tokenCalls(): number {
    return this.tokenRequests().length;
  }

  async start(): Promise<this> {
    const handler = (req: http.IncomingMessage, res: http.ServerResponse) => void this.handle(req, res);
    const certs = this.opts.certificates;
    this.server = certs
      ? https.createServer(
          {
            key: fs.readFileSync(certs.serverKeyFile),
            cert: fs.readFileSync(certs.serverCertFile),
            ca: fs.readFileSync(certs.caFile),
            requestCert: true,
            rejectUnauthorized: true,
          },
          handler,
        )
      : http.createServer(handler);
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** A Pix received for the cob `txid` (which becomes CONCLUIDA and lists it), or without txid. */
  receive(pix: {
    txid?: string;
    valor: string;
    horario?: string;
    endToEndId?: string;
    chave?: string;
    pagador?: Record<string, unknown>;
  }): Record<string, any> {
    const received = {
      endToEndId:
        pix.endToEndId ??
        `E99999999${new Date().toISOString().replace(/\D/g, '').slice(0, 12)}${crypto.randomBytes(8).toString('hex').slice(0, 11)}`,
      ...(pix.txid ? { txid: pix.txid } : {}),
      valor: pix.valor,
      horario: pix.horario ?? new Date().toISOString(),
      chave: pix.chave ?? '11222333000181',
      devolucoes: [] as Record<string, any>[],
      ...(pix.pagador ? { pagador: pix.pagador } : {}),
    };
    this.pix.push(received);
    const cob = pix.txid ? this.cobs.get(pix.txid) : undefined;
    if (cob) {
      cob.status = 'CONCLUIDA';
      cob.pix = [...(cob.pix ?? []), received];
    }
    return received;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const socket = req.socket as TLSSocket;
    const peer = typeof socket.getPeerCertificate === 'function' ? socket.getPeerCertificate() : null;
    const request: FakeRequest = {
      method: req.method ?? '',
      url: req.url ?? '',
      headers: req.headers,
      body: Buffer.concat(chunks).toString('utf8'),
      clientCn: (peer?.subject?.CN as string | undefined) ?? null,
    };
    this.requests.push(request);
    if (request.url.startsWith('/api/v2/')) this.onApiRequest?.(request);
    let answer: FakeAnswer;
    try {
      answer = this.respond?.(request) ?? this.route(request);
    } catch {
      answer = problem(500, 'ErroInternoDoServidor');
    }
    // Unref'd: a slow answer still pending when the test ends must not hold the worker open.
    if (answer.delayMs) await new Promise((resolve) => setTimeout(resolve, answer.delayMs).unref());
    if (answer.destroy) {
      req.socket.destroy();
      return;
    }
    const isProblem = answer.status >= 400 && answer.raw === undefined;
    res.writeHead(answer.status, {
      'content-type': isProblem ? 'application/problem+json' : 'application/json',
      ...answer.headers,
    });
    res.end(answer.raw ?? (answer.body === undefined ? '' : JSON.stringify(answer.body)));
  }

  private route(req: FakeRequest): FakeAnswer {
    const [pathname, query = ''] = req.url.split('?');
    if (pathname === '/oauth/token' && req.method === 'POST') return this.token(req);
    if (!pathname.startsWith('/api/v2/')) return problem(404, 'NaoEncontrado');
    if (!this.authorized(req))
      return { status: 401, body: { type: `${PROBLEM}AcessoNegado`, title: 'Não autorizado', status: 401 } };
    const routes: [string, RegExp, Route][] = [
      ['PUT', /^\/cob\/([^/]+)$/, (r, [txid]) => this.putCob(txid, JSON.parse(r.body))],
      [
        'GET',
        /^\/cob\/([^/]+)$/,
        (_r, [txid]) =>
          this.cobs.has(txid) ? { status: 200, body: this.cobs.get(txid) } : problem(404, 'CobNaoEncontrado'),
      ],
      ['PATCH', /^\/cob\/([^/]+)$/, (r, [txid]) => this.patchCob(txid, JSON.parse(r.body))],
      ['GET', /^\/pix$/, () => this.listPix(new URLSearchParams(query))],
      ['GET', /^\/pix\/([^/]+)$/, (_r, [e2eid]) => this.findPix(e2eid) ?? problem(404, 'PixNaoEncontrado')],
      [
        'PUT',
        /^\/pix\/([^/]+)\/devolucao\/([^/]+)$/,
        (r, [e2eid, id]) => this.putDevolucao(e2eid, id, JSON.parse(r.body)),
      ],
      [
        'GET',
        /^\/pix\/([^/]+)\/devolucao\/([^/]+)$/,
        (_r, [e2eid, id]) => {
          const devolucao = this.devolucoes.get(`${e2eid}/${id}`);
          return devolucao ? { status: 200, body: devolucao } : problem(404, 'PixDevolucaoNaoEncontrada');
        },
      ],
      [
        'PUT',
        /^\/webhook\/([^/]+)$/,
        (r, [chave]) => {
          this.webhooks.set(decodeURIComponent(chave), {
            webhookUrl: JSON.parse(r.body).webhookUrl,
            chave: decodeURIComponent(chave),
            criacao: new Date().toISOString(),
          });
          return { status: 200 };
        },
      ],
      [
        'GET',
        /^\/webhook\/([^/]+)$/,
        (_r, [chave]) => {
          const webhook = this.webhooks.get(decodeURIComponent(chave));
          return webhook ? { status: 200, body: webhook } : problem(404, 'WebhookNaoEncontrado');
        },
      ],
    ];
    const relative = pathname.slice('/api/v2'.length);
    for (const [method, pattern, route] of routes) {
      const match = pattern.exec(relative);
      if (match && method === req.method) return route(req, match.slice(1));
    }
    return problem(404, 'NaoEncontrado');
  }

  private token(req: FakeRequest): FakeAnswer {
    const [scheme, encoded] = (req.headers.authorization ?? '').split(' ');
    const [id, secret] = Buffer.from(encoded ?? '', 'base64')
      .toString('utf8')
      .split(':');
    const decode = (v: string | undefined) => new URLSearchParams(`v=${v ?? ''}`).get('v');
    if (scheme !== 'Basic' || decode(id) !== this.opts.clientId || decode(secret) !== this.opts.clientSecret) {
      return { status: 401, body: { error: 'invalid_client', error_description: 'client authentication failed' } };
    }
    if (new URLSearchParams(req.body).get('grant_type') !== 'client_credentials')
      return { status: 400, body: { error: 'unsupported_grant_type' } };
    const token = `fake-token-${this.tokensIssued.length + 1}-${crypto.randomBytes(12).toString('hex')}`;
    this.tokensIssued.push(token);
    return {
      status: 200,
      body: {
        access_token: token,
        token_type: 'Bearer',
        expires_in: this.opts.expiresInSeconds ?? 3600,
        scope: 'cob.write cob.read pix.read pix.write webhook.read webhook.write',
      },
    };
  }

  private authorized(req: FakeRequest): boolean {
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    return token !== undefined && this.tokensIssued.includes(token) && !this.revoked.has(token);
  }

  private putCob(txid: string, body: Record<string, any>): FakeAnswer {
    const existing = this.cobs.get(txid);
    if (existing && existing.status !== 'ATIVA') {
      return problem(400, 'CobOperacaoInvalida', [
        { razao: 'A cobrança já existe e não está ATIVA.', propriedade: 'cob.status' },
      ]);
    }
    const location = `127.0.0.1/qr/v2/${crypto.randomBytes(16).toString('hex')}`;
    const cob = {
      calendario: {
        criacao: existing?.calendario.criacao ?? new Date().toISOString(),
        expiracao: body.calendario?.expiracao ?? 86400,
      },
      txid,
      revisao: existing ? existing.revisao + 1 : 0,
      loc: { id: 1, location, tipoCob: 'cob' },
      location,
      status: 'ATIVA',
      ...(body.devedor ? { devedor: body.devedor } : {}),
      valor: { original: body.valor.original },
      chave: body.chave,
      ...(body.solicitacaoPagador ? { solicitacaoPagador: body.solicitacaoPagador } : {}),
      pixCopiaECola: `00020101021226830014br.gov.bcb.pix2561${location}5204000053039865802BR5913FAKE PSP TEST6009SAO PAULO62070503***6304ABCD`,
    };
    this.cobs.set(txid, cob);
    return { status: existing ? 200 : 201, body: cob };
  }

  private patchCob(txid: string, body: Record<string, any>): FakeAnswer {
    const cob = this.cobs.get(txid);
    if (!cob) return problem(404, 'CobNaoEncontrado');
    if (cob.status !== 'ATIVA')
      return problem(400, 'CobOperacaoInvalida', [{ razao: 'A cobrança não está ATIVA.', propriedade: 'cob.status' }]);
    cob.status = body.status;
    cob.revisao += 1;
    return { status: 200, body: cob };
  }

  private findPix(e2eid: string): FakeAnswer | undefined {
    const pix = this.pix.find((p) => p.endToEndId === e2eid);
    return pix ? { status: 200, body: pix } : undefined;
  }

  private listPix(query: URLSearchParams): FakeAnswer {
    const inicio = query.get('inicio') ?? '';
    const fim = query.get('fim') ?? '';
    const txid = query.get('txid');
    const page = Number(query.get('paginacao.paginaAtual') ?? 0);
    const size = Math.min(Number(query.get('paginacao.itensPorPagina') ?? 100), this.opts.maxPageSize ?? 1000);
    const all = this.pix.filter((p) => p.horario >= inicio && p.horario <= fim && (!txid || p.txid === txid));
    const pages = Math.max(1, Math.ceil(all.length / size));
    return {
      status: 200,
      body: {
        parametros: {
          inicio,
          fim,
          paginacao: {
            paginaAtual: page,
            itensPorPagina: size,
            quantidadeDePaginas: pages,
            quantidadeTotalDeItens: all.length,
          },
        },
        pix: all.slice(page * size, (page + 1) * size),
      },
    };
  }

  private putDevolucao(e2eid: string, id: string, body: Record<string, any>): FakeAnswer {
    const pix = this.pix.find((p) => p.endToEndId === e2eid);
    if (!pix) return problem(404, 'PixNaoEncontrado');
    if (this.devolucoes.has(`${e2eid}/${id}`)) {
      return problem(400, 'PixDevolucaoInvalida', [
        { razao: 'O id da devolução já foi utilizado para este Pix.', propriedade: 'id' },
      ]);
    }
    const returned = pix.devolucoes.reduce(
      (sum: number, d: Record<string, any>) => sum + Math.round(Number(d.valor) * 100),
      0,
    );
    if (returned + Math.round(Number(body.valor) * 100) > Math.round(Number(pix.valor) * 100)) {
      return problem(400, 'PixDevolucaoInvalida', [
        {
          razao: 'A devolução excederia o valor do Pix originário.',
          propriedade: 'devolucao.valor',
          valor: body.valor,
        },
      ]);
    }
    const devolucao = {
      id,
      rtrId: `D99999999${crypto.randomBytes(12).toString('hex').slice(0, 23)}`,
      valor: body.valor,
      horario: { solicitacao: new Date().toISOString() },
      status: 'EM_PROCESSAMENTO',
    };
    this.devolucoes.set(`${e2eid}/${id}`, devolucao);
    pix.devolucoes.push(devolucao);
    return { status: 201, body: devolucao };
  }
}

export function problem(
  status: number,
  type: string,
  violacoes?: { razao: string; propriedade: string; valor?: string }[],
): FakeAnswer {
  return {
    status,
    body: {
      type: `${PROBLEM}${type}`,
      title: type,
      status,
      detail: `Fake PSP: ${type}`,
      ...(violacoes ? { violacoes } : {}),
    },
  };
}
