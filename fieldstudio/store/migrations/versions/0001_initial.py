"""initial schema for the whole design

Revision ID: 0001_initial
Revises: 
Create Date: 2026-11-30 21:12:08.703063
"""
from alembic import op
import sqlalchemy as sa


revision = '0001_initial'
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    
    op.create_table('label',
    sa.Column('id', sa.String(length=32), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('color', sa.String(length=9), nullable=False),
    sa.Column('shortcut', sa.Integer(), nullable=True),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('name')
    )
    op.create_table('media',
    sa.Column('id', sa.String(length=32), nullable=False),
    sa.Column('kind', sa.String(length=16), nullable=False),
    sa.Column('path', sa.Text(), nullable=False),
    sa.Column('file_name', sa.Text(), nullable=False),
    sa.Column('sha256', sa.String(length=64), nullable=True),
    sa.Column('size_bytes', sa.Integer(), nullable=True),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('error', sa.Text(), nullable=True),
    sa.Column('added_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('camera_group', sa.String(length=200), nullable=True),
    sa.Column('width', sa.Integer(), nullable=True),
    sa.Column('height', sa.Integer(), nullable=True),
    sa.Column('format', sa.String(length=32), nullable=True),
    sa.Column('orientation', sa.Integer(), nullable=True),
    sa.Column('codec', sa.String(length=32), nullable=True),
    sa.Column('duration_s', sa.Float(), nullable=True),
    sa.Column('time_base_num', sa.Integer(), nullable=True),
    sa.Column('time_base_den', sa.Integer(), nullable=True),
    sa.Column('rotation', sa.Integer(), nullable=True),
    sa.Column('has_audio', sa.Boolean(), nullable=True),
    sa.Column('is_vfr', sa.Boolean(), nullable=True),
    sa.Column('frame_count', sa.Integer(), nullable=True),
    sa.Column('avg_fps', sa.Float(), nullable=True),
    sa.Column('index_status', sa.String(length=16), nullable=True),
    sa.Column('page_count', sa.Integer(), nullable=True),
    sa.Column('text_encoding', sa.String(length=40), nullable=True),
    sa.Column('extra', sa.JSON(), nullable=True),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('media', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_media_file_name'), ['file_name'], unique=False)
        batch_op.create_index(batch_op.f('ix_media_sha256'), ['sha256'], unique=False)

    op.create_table('model_profile',
    sa.Column('id', sa.String(length=32), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('base_url', sa.Text(), nullable=True),
    sa.Column('model', sa.String(length=200), nullable=True),
    sa.Column('params', sa.JSON(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_table('project_setting',
    sa.Column('key', sa.String(length=100), nullable=False),
    sa.Column('value', sa.JSON(), nullable=True),
    sa.PrimaryKeyConstraint('key')
    )
    op.create_table('rating_set',
    sa.Column('id', sa.String(length=32), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('requirement', sa.Text(), nullable=False),
    sa.Column('reasons', sa.JSON(), nullable=False),
    sa.Column('fields', sa.JSON(), nullable=False),
    sa.Column('rules', sa.JSON(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('name')
    )
    op.create_table('response_cache',
    sa.Column('key', sa.String(length=64), nullable=False),
    sa.Column('response', sa.JSON(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('key')
    )
    op.create_table('annotation',
    sa.Column('id', sa.String(length=32), nullable=False),
    sa.Column('media_id', sa.String(length=32), nullable=False),
    sa.Column('kind', sa.String(length=16), nullable=False),
    sa.Column('label_id', sa.String(length=32), nullable=True),
    sa.Column('text', sa.Text(), nullable=True),
    sa.Column('frame_index', sa.Integer(), nullable=True),
    sa.Column('pts', sa.Integer(), nullable=True),
    sa.Column('end_frame_index', sa.Integer(), nullable=True),
    sa.Column('end_pts', sa.Integer(), nullable=True),
    sa.Column('geometry', sa.JSON(), nullable=True),
    sa.Column('attributes', sa.JSON(), nullable=True),
    sa.Column('track_id', sa.Integer(), nullable=True),
    sa.Column('is_keyframe', sa.Boolean(), nullable=False),
    sa.Column('on_floor', sa.Boolean(), nullable=False),
    sa.Column('author', sa.String(length=200), nullable=True),
    sa.Column('deleted', sa.Boolean(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['label_id'], ['label.id'], ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['media_id'], ['media.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('annotation', schema=None) as batch_op:
        batch_op.create_index('ix_annotation_media_frame', ['media_id', 'frame_index'], unique=False)
        batch_op.create_index(batch_op.f('ix_annotation_media_id'), ['media_id'], unique=False)

    op.create_table('calibration',
    sa.Column('id', sa.String(length=32), nullable=False),
    sa.Column('media_id', sa.String(length=32), nullable=True),
    sa.Column('camera_group', sa.String(length=200), nullable=True),
    sa.Column('kind', sa.String(length=16), nullable=False),
    sa.Column('points', sa.JSON(), nullable=False),
    sa.Column('length_m', sa.Float(), nullable=True),
    sa.Column('width_m', sa.Float(), nullable=True),
    sa.Column('depth_m', sa.Float(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['media_id'], ['media.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('calibration', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_calibration_media_id'), ['media_id'], unique=False)

    op.create_table('document_page',
    sa.Column('media_id', sa.String(length=32), nullable=False),
    sa.Column('page_number', sa.Integer(), nullable=False),
    sa.Column('text', sa.Text(), nullable=False),
    sa.Column('needs_ocr', sa.Boolean(), nullable=False),
    sa.ForeignKeyConstraint(['media_id'], ['media.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('media_id', 'page_number')
    )
    op.create_table('frame_index',
    sa.Column('media_id', sa.String(length=32), nullable=False),
    sa.Column('frame_index', sa.Integer(), nullable=False),
    sa.Column('pts', sa.Integer(), nullable=False),
    sa.Column('keyframe', sa.Boolean(), nullable=False),
    sa.ForeignKeyConstraint(['media_id'], ['media.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('media_id', 'frame_index')
    )
    op.create_table('rating_item',
    sa.Column('id', sa.String(length=32), nullable=False),
    sa.Column('rating_set_id', sa.String(length=32), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.Column('media_id', sa.String(length=32), nullable=True),
    sa.Column('frame_index', sa.Integer(), nullable=True),
    sa.Column('sha256', sa.String(length=64), nullable=True),
    sa.Column('ground_truth', sa.JSON(), nullable=True),
    sa.ForeignKeyConstraint(['media_id'], ['media.id'], ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['rating_set_id'], ['rating_set.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('rating_item', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_rating_item_rating_set_id'), ['rating_set_id'], unique=False)

    op.create_table('run',
    sa.Column('id', sa.String(length=32), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('kind', sa.String(length=16), nullable=False),
    sa.Column('profile_id', sa.String(length=32), nullable=True),
    sa.Column('strategy', sa.String(length=60), nullable=True),
    sa.Column('strategy_version', sa.String(length=20), nullable=True),
    sa.Column('params', sa.JSON(), nullable=True),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('started_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('finished_at', sa.DateTime(timezone=True), nullable=True),
    sa.ForeignKeyConstraint(['profile_id'], ['model_profile.id'], ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_table('thumbnail',
    sa.Column('media_id', sa.String(length=32), nullable=False),
    sa.Column('frame_index', sa.Integer(), nullable=False),
    sa.Column('width', sa.Integer(), nullable=False),
    sa.Column('height', sa.Integer(), nullable=False),
    sa.Column('jpeg', sa.LargeBinary(), nullable=False),
    sa.ForeignKeyConstraint(['media_id'], ['media.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('media_id', 'frame_index')
    )
    op.create_table('rating',
    sa.Column('id', sa.String(length=32), nullable=False),
    sa.Column('item_id', sa.String(length=32), nullable=False),
    sa.Column('rater', sa.String(length=200), nullable=False),
    sa.Column('verdict', sa.String(length=8), nullable=False),
    sa.Column('reasons', sa.JSON(), nullable=False),
    sa.Column('fields', sa.JSON(), nullable=False),
    sa.Column('seconds_spent', sa.Float(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['item_id'], ['rating_item.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('item_id', 'rater', name='uq_rating_item_rater')
    )
    with op.batch_alter_table('rating', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_rating_item_id'), ['item_id'], unique=False)

    op.create_table('task',
    sa.Column('id', sa.String(length=32), nullable=False),
    sa.Column('external_id', sa.String(length=200), nullable=True),
    sa.Column('source', sa.String(length=40), nullable=False),
    sa.Column('query', sa.Text(), nullable=False),
    sa.Column('answer_type', sa.String(length=32), nullable=False),
    sa.Column('ground_truth', sa.Text(), nullable=True),
    sa.Column('ground_truth_extra', sa.JSON(), nullable=True),
    sa.Column('ground_truth_annotation_id', sa.String(length=32), nullable=True),
    sa.Column('eval_func', sa.String(length=40), nullable=True),
    sa.Column('output_format', sa.String(length=16), nullable=True),
    sa.Column('category', sa.String(length=100), nullable=True),
    sa.Column('sub_category', sa.String(length=100), nullable=True),
    sa.Column('scenario', sa.String(length=40), nullable=True),
    sa.Column('tolerances', sa.JSON(), nullable=True),
    sa.Column('notes', sa.Text(), nullable=True),
    sa.Column('missing_media', sa.Boolean(), nullable=False),
    sa.Column('extra', sa.JSON(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['ground_truth_annotation_id'], ['annotation.id'], ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('source', 'external_id', name='uq_task_source_external')
    )
    with op.batch_alter_table('task', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_task_category'), ['category'], unique=False)
        batch_op.create_index(batch_op.f('ix_task_external_id'), ['external_id'], unique=False)

    op.create_table('answer',
    sa.Column('id', sa.String(length=32), nullable=False),
    sa.Column('run_id', sa.String(length=32), nullable=False),
    sa.Column('task_id', sa.String(length=32), nullable=False),
    sa.Column('raw_text', sa.Text(), nullable=True),
    sa.Column('parsed', sa.JSON(), nullable=True),
    sa.Column('prompt_tokens', sa.Integer(), nullable=True),
    sa.Column('completion_tokens', sa.Integer(), nullable=True),
    sa.Column('reasoning_tokens', sa.Integer(), nullable=True),
    sa.Column('cached_tokens', sa.Integer(), nullable=True),
    sa.Column('latency_s', sa.Float(), nullable=True),
    sa.Column('cost_usd', sa.Float(), nullable=True),
    sa.Column('error', sa.Text(), nullable=True),
    sa.Column('retries', sa.Integer(), nullable=False),
    sa.Column('from_cache', sa.Boolean(), nullable=False),
    sa.Column('frames', sa.JSON(), nullable=True),
    sa.Column('trace', sa.JSON(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['run_id'], ['run.id'], ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['task_id'], ['task.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('run_id', 'task_id', name='uq_answer_run_task')
    )
    with op.batch_alter_table('answer', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_answer_run_id'), ['run_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_answer_task_id'), ['task_id'], unique=False)

    op.create_table('task_input',
    sa.Column('task_id', sa.String(length=32), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.Column('name', sa.Text(), nullable=False),
    sa.Column('media_id', sa.String(length=32), nullable=True),
    sa.Column('start_s', sa.Float(), nullable=True),
    sa.Column('end_s', sa.Float(), nullable=True),
    sa.ForeignKeyConstraint(['media_id'], ['media.id'], ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['task_id'], ['task.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('task_id', 'position')
    )
    op.create_table('score',
    sa.Column('id', sa.String(length=32), nullable=False),
    sa.Column('answer_id', sa.String(length=32), nullable=False),
    sa.Column('scorer', sa.String(length=60), nullable=False),
    sa.Column('scorer_version', sa.String(length=20), nullable=False),
    sa.Column('value', sa.Float(), nullable=True),
    sa.Column('correct', sa.Boolean(), nullable=True),
    sa.Column('explanation', sa.Text(), nullable=True),
    sa.Column('judge', sa.JSON(), nullable=True),
    sa.Column('author', sa.String(length=200), nullable=True),
    sa.Column('reason', sa.Text(), nullable=True),
    sa.Column('overrides_id', sa.String(length=32), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['answer_id'], ['answer.id'], ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['overrides_id'], ['score.id'], ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('score', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_score_answer_id'), ['answer_id'], unique=False)

    


def downgrade() -> None:
    
    with op.batch_alter_table('score', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_score_answer_id'))

    op.drop_table('score')
    op.drop_table('task_input')
    with op.batch_alter_table('answer', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_answer_task_id'))
        batch_op.drop_index(batch_op.f('ix_answer_run_id'))

    op.drop_table('answer')
    with op.batch_alter_table('task', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_task_external_id'))
        batch_op.drop_index(batch_op.f('ix_task_category'))

    op.drop_table('task')
    with op.batch_alter_table('rating', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_rating_item_id'))

    op.drop_table('rating')
    op.drop_table('thumbnail')
    op.drop_table('run')
    with op.batch_alter_table('rating_item', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_rating_item_rating_set_id'))

    op.drop_table('rating_item')
    op.drop_table('frame_index')
    op.drop_table('document_page')
    with op.batch_alter_table('calibration', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_calibration_media_id'))

    op.drop_table('calibration')
    with op.batch_alter_table('annotation', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_annotation_media_id'))
        batch_op.drop_index('ix_annotation_media_frame')

    op.drop_table('annotation')
    op.drop_table('response_cache')
    op.drop_table('rating_set')
    op.drop_table('project_setting')
    op.drop_table('model_profile')
    with op.batch_alter_table('media', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_media_sha256'))
        batch_op.drop_index(batch_op.f('ix_media_file_name'))

    op.drop_table('media')
    op.drop_table('label')
    
